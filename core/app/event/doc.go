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
// table against All and the types here.
//
// # The Go form
//
// Each event is a plain struct whose exported fields are its JSON fields.
// A few carry Go-only fields (json:"-") that a front end needs and a
// script does not: Connected.PeerKey, the proven key to pin; Offer.Full,
// the whole offer where the JSON lists its first MaxOfferEntries. Convert
// an engine event with FromTransfer; core/app adds the events the engine
// does not know (Listening, Page, Accepted by a person, Trusted, Error).
//
// # Where it builds
//
// The package imports only core/transfer and core/diag, so it builds for
// GOOS=js GOARCH=wasm: the page's Go side uses the same types.
package event
