package present

import (
	"fmt"
	"math"
)

// Units is a way of writing sizes. The unit system is a product
// decision: the CLI counts in powers of 1024, as the tools beside it do;
// the app in powers of 1000, as the file managers beside it do.
type Units int

const (
	// Binary writes "512 B", "3.1 MiB", "412 MiB", "1.0 GiB": one decimal
	// below ten units, none above.
	Binary Units = iota
	// Decimal writes "17 bytes", "4.20 MB", "640 kB": three significant
	// digits.
	Decimal
)

// Bytes renders a byte count in u.
func (u Units) Bytes(n int64) string {
	if u == Decimal {
		return decimalBytes(n)
	}
	return binaryBytes(n)
}

// Rate renders bytes per second in u ("110 MiB/s", "48.7 MB/s"), or ""
// when the rate is not a positive finite figure: a rate of nothing says
// nothing to a person.
func (u Units) Rate(bps float64) string {
	if !(bps > 0) || math.IsInf(bps, 0) {
		return ""
	}
	return u.Bytes(int64(bps)) + "/s"
}

func binaryBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n) / 1024
	i := 0
	// Round before choosing: 1023.9 MiB reads "1.0 GiB", 9.99 KiB "10 KiB".
	for v >= 1023.5 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 9.95 {
		return fmt.Sprintf("%.1f %s", v, units[i])
	}
	return fmt.Sprintf("%.0f %s", v, units[i])
}

func decimalBytes(n int64) string {
	if n < 1000 {
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	}
	units := []string{"kB", "MB", "GB", "TB", "PB", "EB"}
	v := float64(n)
	for i, u := range units {
		v /= 1000
		// Thresholds sit where rounding would carry into the next digit,
		// so 999,949 bytes reads "1.00 MB", never "1000 kB".
		switch {
		case v < 9.995:
			return fmt.Sprintf("%.2f %s", v, u)
		case v < 99.95:
			return fmt.Sprintf("%.1f %s", v, u)
		case v < 999.5 || i == len(units)-1:
			return fmt.Sprintf("%.0f %s", v, u)
		}
	}
	panic("unreachable")
}

// Plural renders a count with its noun: "1 file", "3 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
