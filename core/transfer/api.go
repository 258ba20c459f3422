package transfer

import (
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/wire"
)

// The data model and the events are the schema's (core/app/event): the
// engine emits event.Event values themselves, and names them so, so no
// layer converts them. Item, Entry and Offer keep their old names here
// for the callers that still reach them through this package
// (core/history's record, the tests of core/web, core/guess and
// core/history, tests/browser, gui/xvfb and the benchmarks); a new
// caller names them through core/app/event.
type (
	Item  = event.Item
	Entry = event.Entry
	Offer = event.Offer
)

// Limits every peer must respect: the wire's (core/wire), and the longest
// name and path that core/place writes, which the wire holds paths to.
// A message that breaks one is ErrProtocol.
const (
	MaxEntries       = wire.MaxEntries
	MaxManifestBytes = wire.MaxManifestBytes
	MaxTextBytes     = wire.MaxTextBytes
	MaxNameBytes     = place.MaxNameBytes
	MaxPathBytes     = place.MaxPathBytes
)
