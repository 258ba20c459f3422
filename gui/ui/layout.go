package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// fixedWidth lays out its objects stacked, at a set width and their own
// minimum height: a card that does not stretch across a wide window and
// never asks for more height than its content needs.
type fixedWidth float32

func (w fixedWidth) MinSize(objects []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objects {
		if !o.Visible() {
			continue
		}
		// A wrapping label's minimum height depends on its width: give
		// it the width first, or it reports one word per line.
		if o.Size().Width != float32(w) {
			o.Resize(fyne.NewSize(float32(w), o.Size().Height))
		}
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(float32(w), h)
}

func (w fixedWidth) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// centred puts content in the middle of the available space at width w.
func centred(w float32, content fyne.CanvasObject) *fyne.Container {
	return container.NewCenter(container.New(fixedWidth(w), content))
}
