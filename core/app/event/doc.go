// Package event is Ferry's one event schema: every event a front end is
// told, as a Go value and as its one JSON form. The CLI's --json lines,
// the mobile binding's JSON callback and the browser page all carry these
// objects, so a new event is written here once (a type, its Type, and
// where core/app emits it) and no front end's own types change.
//
// # The JSON form
//
// Marshal gives one JSON object per event: an "event" field naming its
// type first (Type), then the type's fields. Field names are snake_case
// and never change meaning; byte counts are bytes, rates bytes per
// second, durations seconds (a float), times RFC 3339 in UTC. cli/README.md
// lists every event with its fields, and a test in cli/ferry checks that
// table against All and the types here. The bytes are encoding/json's;
// the entry event (EntryDone), one a file, is written by hand to the same
// bytes (appendjson.go), and AppendJSON appends any event to a buffer a
// front end keeps, allocating nothing for an entry.
//
// # Notices
//
// An event a person should read as it is (CodeLonger, SameName) is a
// Notice: it words itself, and every front end shows any Notice without
// knowing which it is (JSON carries the words as "notice"). So a new one
// costs four files with its test: its type, Type and Notice here (and
// its place in All), the engine's file that emits it, that file's test,
// and its row in cli/README.md's table, which cli/ferry's test holds to
// All. No front end changes.
//
// # The Go form
//
// Each event is a plain struct whose exported fields are its JSON fields.
// A few carry Go-only fields (json:"-") that a front end needs and a
// script does not: Connected.PeerKey, the proven key to pin; a receiver's
// session id on the events of one session (SessionOf); Done.Summary and
// Error.Err. Offer.Entries is the whole offer where the JSON lists its
// first MaxOfferEntries.
//
// # One vocabulary
//
// The engine (core/transfer) emits these events themselves, and the data
// model both ends share (Item, Entry, Kind, Offer, Outcome, EntryDone,
// Summary) is defined here, with its JSON form where it has one. core/app
// passes the engine's events through and adds the ones it owns
// (Listening, Page, Accepted by a person, Trusted, the words of Refused,
// Unproven and Error, Done with its diagnostics policy); a front end
// neither converts an event nor names the engine's types.
//
// # Where it builds
//
// The package is a leaf: it imports only core/diag and the standard
// library, so every layer may use it, and it builds for GOOS=js
// GOARCH=wasm: the page's Go side uses the same types.
package event
