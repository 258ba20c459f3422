package ui

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	qrcode "github.com/skip2/go-qrcode"
)

// qrSide is the QR code's size on screen. Large enough for a phone camera
// at arm's length; the quiet zone the standard asks for is part of it.
const qrSide = 220

// qrImage renders text as a QR code with medium error correction (15%:
// survives a glare spot on a laptop screen without making the code dense).
func qrImage(text string) (image.Image, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return nil, err
	}
	return q.Image(512), nil
}

// newQRCanvas returns an image object that shows QR codes crisply.
func newQRCanvas() *canvas.Image {
	img := canvas.NewImageFromImage(nil)
	img.FillMode = canvas.ImageFillContain
	img.ScaleMode = canvas.ImageScalePixels
	img.SetMinSize(fyne.NewSize(qrSide, qrSide))
	return img
}
