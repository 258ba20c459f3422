package transfer

import "github.com/ferry-project/ferry/core/app/event"

// Sink takes a receiver's entries somewhere that is not a folder on this
// device's disk (receive.ReceiverConfig.Sink): the contract is event.Sink's.
type Sink = event.Sink

// SinkFile receives one entry's bytes (event.SinkFile).
type SinkFile = event.SinkFile
