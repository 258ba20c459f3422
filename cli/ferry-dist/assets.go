package main

import (
	"bytes"
	"embed"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"

	"github.com/goreleaser/nfpm/v2/files"
)

// The icon is drawn once, as SVG (assets/ferry.svg); the PNG sizes that
// desktops without an SVG loader need are rendered from it here with the
// SVG rasteriser Fyne already brings, so the two can never disagree and no
// binary image is kept in the repository.
//
//go:embed assets/ferry.svg assets/io.github.ferry-project.ferry.desktop assets/ferry-receive.service
var assets embed.FS

// serviceUnit is the systemd user unit that runs ferry receive --daemon
// (cli/ferry/daemon.go), where systemd looks for units that packages
// install for every user.
const serviceUnit = "/usr/lib/systemd/user/ferry-receive.service"

// writeServiceUnit writes the unit into stage and returns it as package
// content. A user enables it; the package starts nothing.
func writeServiceUnit(stage string) (*files.Content, error) {
	unit, err := assets.ReadFile("assets/ferry-receive.service")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(stage, "ferry-receive.service")
	if err := os.WriteFile(src, unit, 0o644); err != nil {
		return nil, err
	}
	return &files.Content{Source: src, Destination: serviceUnit, FileInfo: &files.ContentFileInfo{Mode: 0o644}}, nil
}

// pngSizes are the hicolor theme sizes shipped besides the SVG: 48 for
// menus and docks, 256 for app grids and software centres.
var pngSizes = []int{48, 128, 256}

// fmSystem is where the file managers' system-wide entries are, under the
// repository root: a tree copied as it is to /. It is data read from the
// repository (as README.md is), not a package imported, so that the
// packaging tool links nothing of the app; gui/fmactions embeds the same
// files for the per-user install.
const fmSystem = "gui/fmactions/system"

// writeAssets writes the desktop entry and the icons into stage and
// returns them, with the file managers' entries (under root), as package
// contents at their freedesktop locations.
func writeAssets(stage, root string) (files.Contents, error) {
	svg, err := assets.ReadFile("assets/ferry.svg")
	if err != nil {
		return nil, err
	}
	desktop, err := assets.ReadFile("assets/" + appID + ".desktop")
	if err != nil {
		return nil, err
	}
	type staged struct {
		name, dst string
		data      []byte
	}
	out := []staged{
		{appID + ".desktop", "/usr/share/applications/" + appID + ".desktop", desktop},
		{appID + ".svg", "/usr/share/icons/hicolor/scalable/apps/" + appID + ".svg", svg},
	}
	for _, size := range pngSizes {
		var b bytes.Buffer
		if err := renderIcon(&b, svg, size); err != nil {
			return nil, err
		}
		s := strconv.Itoa(size)
		out = append(out, staged{appID + "-" + s + ".png", "/usr/share/icons/hicolor/" + s + "x" + s + "/apps/" + appID + ".png", b.Bytes()})
	}
	var contents files.Contents
	for _, f := range out {
		src := filepath.Join(stage, f.name)
		if err := os.WriteFile(src, f.data, 0o644); err != nil {
			return nil, err
		}
		contents = append(contents, &files.Content{Source: src, Destination: f.dst, FileInfo: &files.ContentFileInfo{Mode: 0o644}})
	}
	// "Send with Ferry" in the file managers that have a system-wide
	// folder for it (Nemo, Dolphin); Nautilus and Caja read only per-user
	// folders: ferry-gui --install-file-manager-actions writes those.
	sys := filepath.Join(root, filepath.FromSlash(fmSystem))
	err = filepath.WalkDir(sys, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(sys, p)
		if err != nil {
			return err
		}
		contents = append(contents, &files.Content{Source: p, Destination: "/" + filepath.ToSlash(rel), FileInfo: &files.ContentFileInfo{Mode: 0o644}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the file managers' entries (%s): %w", fmSystem, err)
	}
	return contents, nil
}

// renderIcon rasterises the SVG to a size×size PNG.
func renderIcon(w io.Writer, svg []byte, size int) error {
	icon, err := oksvg.ReadIconStream(bytes.NewReader(svg), oksvg.StrictErrorMode)
	if err != nil {
		return fmt.Errorf("reading the icon: %w", err)
	}
	icon.SetTarget(0, 0, float64(size), float64(size))
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	scanner := rasterx.NewScannerGV(size, size, img, img.Bounds())
	icon.Draw(rasterx.NewDasher(size, size, scanner), 1)
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("encoding the %dpx icon: %w", size, err)
	}
	return nil
}
