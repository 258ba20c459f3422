// Package mobile is Ferry for phones: the API that the Android and iOS
// apps, thin Kotlin and Swift shells, bind with gomobile. It drives the
// same core as the CLI and the desktop app (core/transfer,
// core/discovery, core/secure); nothing here speaks the protocol.
//
// placeholder: the full doc follows below.
package mobile
