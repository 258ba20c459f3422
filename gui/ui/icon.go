package ui

import (
	"bytes"
	_ "embed"
	"image"
	"image/png"
	"sync"

	"fyne.io/fyne/v2"
	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"
)

// iconSVG is Ferry's icon, the same file as cli/ferry-dist's (a test
// keeps the copies equal).
//
//go:embed icon.svg
var iconSVG []byte

// iconSize is the tray icon's side in pixels: trays scale it down, and
// a StatusNotifierItem host takes PNG pixels, not SVG.
const iconSize = 64

var appIcon = sync.OnceValue(func() fyne.Resource {
	icon, err := oksvg.ReadIconStream(bytes.NewReader(iconSVG), oksvg.StrictErrorMode)
	if err != nil {
		panic("ui: the embedded icon does not parse: " + err.Error()) // a broken build, not input
	}
	icon.SetTarget(0, 0, iconSize, iconSize)
	img := image.NewRGBA(image.Rect(0, 0, iconSize, iconSize))
	icon.Draw(rasterx.NewDasher(iconSize, iconSize, rasterx.NewScannerGV(iconSize, iconSize, img, img.Bounds())), 1)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic("ui: encoding the icon: " + err.Error())
	}
	return fyne.NewStaticResource("ferry.png", b.Bytes())
})

// AppIcon is Ferry's icon as a 64-pixel PNG, for the window and the tray.
func AppIcon() fyne.Resource { return appIcon() }
