// Package convertcmd implements `loregate convert`:
//
//	loregate convert IN [-o OUT] [--to st|ccv3|card|png|charx|novelai|risu|agnai|worldbook|canonical] [--long-entries split|skip] [--report-only]
//
// It imports IN with lore/format (any detected format), writes the
// converted book to OUT (stdout when omitted or "-") and the conversion
// report as JSON to stderr. With --report-only it prints only the report
// JSON to stdout. --to selects the output: st (SillyTavern world info, the
// default), ccv3 (standalone lorebook_v3), card, png or charx (the whole
// character card with the book inside: the card the file came in, image
// and assets kept, or a minimal card), novelai, risu, agnai, worldbook or canonical
// (the canonical book as JSON). Conversion applies no store limit, only
// the safety ceilings of lore.CeilingLimits (docs/configuration.md
// "Limits"), so any file within them converts; --long-entries says what to
// do with content over the content ceiling (split, the default, or skip).
// Exit status: 0 on success, 2 on bad arguments or bad input (one clear
// line on stderr), 1 when OUT cannot be written.
package convertcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"loregate/cmd/internal/cli"
	"loregate/lore"
	"loregate/lore/format"
)

// maxInput caps the bytes read from IN before detection: the largest
// carrier limit of format.Options defaults (CHARX, 64 MiB), which is also
// the JSON safety ceiling.
const maxInput = 64 << 20

// Run executes the command with args (after "convert"): a cli.Func. IN "-"
// reads stdin.
func Run(ctx context.Context, env cli.Env, args []string) error {
	stdin, stdout, stderr := env.Stdin, env.Stdout, env.Stderr
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "output file (default stdout)")
	to := fs.String("to", "st", "output format: st, ccv3, card, png, charx, novelai, risu, agnai, worldbook or canonical")
	reportOnly := fs.Bool("report-only", false, "print only the report JSON to stdout")
	long := fs.String("long-entries", "split", "entries over the content ceiling: split or skip")
	usage := "usage: loregate convert IN [-o OUT] [--to st|ccv3|card|png|charx|novelai|risu|agnai|worldbook|canonical] [--long-entries split|skip] [--report-only]"
	// Accept flags before and after IN.
	var in string
	rest := args
	for {
		if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return cli.Exit(0)
		} else if err != nil {
			return cli.Usagef("%v\n%s", err, usage)
		}
		if fs.NArg() == 0 {
			break
		}
		if in != "" {
			return cli.Usagef("more than one input file\n%s", usage)
		}
		in, rest = fs.Arg(0), fs.Args()[1:]
	}
	if in == "" {
		return cli.Usagef("missing input file\n%s", usage)
	}
	switch *to {
	case "st", "ccv3", "card", "png", "charx", "novelai", "risu", "agnai", "worldbook", "canonical":
	default:
		return cli.Usagef("--to %q is not one of st, ccv3, card, png, charx, novelai, risu, agnai, worldbook, canonical", *to)
	}
	if *long != "split" && *long != "skip" {
		return cli.Usagef("--long-entries %q is not split or skip", *long)
	}
	if err := ctx.Err(); err != nil {
		return cli.Failf("%v", err)
	}
	data, name, err := readInput(in, stdin)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	res, err := format.Import(name, data, format.Options{
		Limits: lore.CeilingLimits(), LongEntries: format.LongEntries(*long),
	})
	if err != nil {
		return cli.Usagef("%s: %v", name, err)
	}
	if *to == "novelai" || *to == "agnai" {
		// No decorators there: the export maps them to fields and the
		// report lists the ones it drops.
		for _, n := range format.DecoratorNotes(res.Book) {
			res.Report.Notef(n.Reason, n.Params)
		}
	}
	if *to == "agnai" {
		for _, n := range format.AgnaiNotes(res.Book) {
			res.Report.Notef(n.Reason, n.Params)
		}
	}
	for _, n := range format.PositionFilterNotes(*to, res.Book) {
		res.Report.Notef(n.Reason, n.Params)
	}
	report, _ := json.MarshalIndent(newReport(&res.Report), "", "  ")
	report = append(report, '\n')
	if *reportOnly {
		if _, err := stdout.Write(report); err != nil {
			return cli.Exit(cli.ExitFailure)
		}
		return nil
	}
	if kind, ok := categoryKinds[*to]; ok {
		// Folders and NovelAI categories cross formats as an import and an
		// export carry them (docs/workbench.md#categories).
		format.WriteFileCategories(&res.Book, kind)
	}
	var body []byte
	switch *to {
	case "st":
		body, err = format.ExportST(res.Book)
	case "ccv3":
		body, err = format.ExportLorebookV3(res.Book)
	case "card":
		body, err = format.ExportCardJSON(res.Book)
	case "png":
		body, err = format.ExportCardPNG(res.Book)
	case "charx":
		body, err = format.ExportCardCHARX(res.Book)
	case "novelai":
		body, err = format.ExportNovelAI(res.Book)
	case "risu":
		body, err = format.ExportRisu(res.Book)
	case "agnai":
		body, err = format.ExportAgnai(res.Book)
	case "worldbook":
		body, err = format.ExportWorldbook(res.Book)
	case "canonical":
		body, err = json.MarshalIndent(res.Book, "", "  ")
		body = append(body, '\n')
	}
	if err != nil {
		return cli.Failf("encode %s: %v", *to, err)
	}
	if *out == "" || *out == "-" {
		_, err = stdout.Write(body)
	} else {
		err = os.WriteFile(*out, body, 0o644)
	}
	if err != nil {
		return cli.Usagef("cannot write %s: %v", *out, err)
	}
	_, _ = stderr.Write(report)
	if n := len(res.Report.Skipped); n > 0 {
		fmt.Fprintf(stderr, "convert: %s skipped (see \"skipped\" in the report above)\n", lore.Count(n, "entry", "entries"))
	}
	return nil
}

func readInput(in string, stdin io.Reader) ([]byte, string, error) {
	var r io.Reader = stdin
	name := ""
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return nil, "", fmt.Errorf("cannot open input %s: %w", in, errors.Unwrap(err))
		}
		defer f.Close()
		r, name = f, filepath.Base(in)
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, "", fmt.Errorf("read input: %w", err)
	}
	if len(data) > maxInput {
		return nil, "", fmt.Errorf("input is too large: over %d bytes", maxInput)
	}
	return data, name, nil
}

// report is the JSON report of convert: format.Summary, the GraphQL
// ConversionReport's fields and names, plus the keys of earlier releases
// (docs/changes.md).
type report struct {
	format.Summary
	Container      format.Container        `json:"container,omitempty"`
	OldUnsupported []format.UnsupportedKey `json:"unsupported_keys"`
	OldIgnored     map[string]int          `json:"ignored_settings"`
	OldCollapsed   int                     `json:"collapsed_placements"`
}

func newReport(r *format.Report) report {
	return report{Summary: format.Summarize(r), Container: r.Container,
		OldUnsupported: r.UnsupportedKeys, OldIgnored: r.IgnoredSettings, OldCollapsed: r.CollapsedPlacements}
}

// categoryKinds are the export formats that carry categories (RisuAI
// folder rows or NovelAI categories), with the shape of their rows.
var categoryKinds = map[string]format.Kind{
	"st": format.KindSTWorldInfo, "ccv3": format.KindLorebookV3, "card": format.KindV3Card, "png": format.KindV3Card,
	"charx": format.KindV3Card, "novelai": format.KindNovelAI, "risu": format.KindRisu, "worldbook": format.KindWorldbook,
}
