package main

// The --json event stream: one object per line on stdout, each an
// event's one JSON form (core/app/event: the field names, and what each
// event means). cli/README.md lists every event with its fields, and
// TestREADMEEvents checks that list against the schema.
