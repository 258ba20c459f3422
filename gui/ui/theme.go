package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme is Fyne's default theme in Ferry's colours: a sea teal for the
// primary colour, with focus and selection tints derived from it.
func Theme() fyne.Theme { return ferryTheme{theme.DefaultTheme()} }

type ferryTheme struct{ fyne.Theme }

var (
	teal      = color.NRGBA{R: 0x0b, G: 0x8a, B: 0x8f, A: 0xff}
	tealLight = color.NRGBA{R: 0x2c, G: 0xc1, B: 0xc4, A: 0xff}
)

func (t ferryTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	p := teal
	if v == theme.VariantDark {
		p = tealLight
	}
	switch n {
	case theme.ColorNamePrimary, theme.ColorNameHyperlink:
		return p
	case theme.ColorNameFocus:
		return color.NRGBA{R: p.R, G: p.G, B: p.B, A: 0x7f}
	case theme.ColorNameSelection:
		return color.NRGBA{R: p.R, G: p.G, B: p.B, A: 0x3f}
	case theme.ColorNameDisabled:
		// Fyne's disabled grey doubles as the colour of secondary
		// text, and on a dark background it is too faint to read.
		if v == theme.VariantDark {
			return color.NRGBA{R: 0x84, G: 0x88, B: 0x8e, A: 0xff}
		}
		return color.NRGBA{R: 0x8a, G: 0x8d, B: 0x93, A: 0xff}
	}
	return t.Theme.Color(n, v)
}
