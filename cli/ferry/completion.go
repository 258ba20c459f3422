package main

import (
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ferry completion bash|zsh|fish prints a completion script for the
// shell. The flags it completes are read from the very flag sets the
// commands parse with (sendFlags, receiveFlags, peersFlags, trustFlags),
// so a flag added there is completed without a second list to keep; a
// flag's one-line description comes from the command's usage text when
// it has one. Values: --dir completes folders, --iface the network
// interfaces in /sys/class/net (Linux; nothing elsewhere), other values
// nothing; send's operands complete paths. Device names (from 'ferry
// peers') are not completed: finding them takes seconds of mDNS.
//
// Install:
//
//	bash: ferry completion bash > ~/.local/share/bash-completion/completions/ferry
//	zsh:  ferry completion zsh > ~/.zfunc/_ferry  (a folder on $fpath), then compinit
//	fish: ferry completion fish > ~/.config/fish/completions/ferry.fish

const completionUsage = `Usage: ferry completion bash|zsh|fish

Prints a script that completes ferry's commands, flags and paths in the
shell. To install it:

    bash  ferry completion bash > ~/.local/share/bash-completion/completions/ferry
    zsh   ferry completion zsh > ~/.zfunc/_ferry
          (with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc)
    fish  ferry completion fish > ~/.config/fish/completions/ferry.fish

Or, for the current shell only: source <(ferry completion bash).
`

// shellCommand is one command as the completions see it.
type shellCommand struct {
	name    string
	aliases []string
	about   string
	flags   *flag.FlagSet // nil: none
	usage   string        // its usage text, for the flags' descriptions
	args    string        // operands: "files", or words to offer
}

// shellCommands lists ferry's commands for the completions. Every name
// here is one run dispatches (a test checks it against topUsage and
// run); the flags come from the commands' own definitions.
func shellCommands() []shellCommand {
	cmds := []shellCommand{
		{name: "send", about: "send files, folders or text", flags: sendFlags(&sendOpts{}), usage: sendUsage, args: "files"},
		{name: "receive", aliases: []string{"recv"}, about: "wait for a transfer and save it", flags: receiveFlags(&receiveOpts{}), usage: receiveUsage},
		{name: "peers", about: "list the receivers on the network", flags: peersFlags(&peersOpts{}), usage: peersUsage},
		{name: "trust", about: "list, add or remove trusted devices", flags: trustFlags("list", &trustOpts{}), usage: trustUsage, args: "list add remove"},
		{name: "history", about: "list the recent transfers, or clear them", flags: historyFlags(false, &historyOpts{}), usage: historyUsage, args: "clear"},
		{name: "version", about: "print the version"},
		{name: "completion", about: "print a shell completion script", args: "bash zsh fish"},
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	return append(cmds, shellCommand{name: "help", about: "show the usage of a command", args: strings.Join(names, " ")})
}

// shellFlag is one flag of a command.
type shellFlag struct {
	name  string // without dashes
	value bool   // takes a value
	about string
}

// dash is the flag as typed: "--dir", or "-q" for a one-letter alias.
func (f shellFlag) dash() string {
	if len(f.name) == 1 {
		return "-" + f.name
	}
	return "--" + f.name
}

// valueKinds says how to complete the value of a flag, by name; flags not
// here complete nothing. A test checks that each name is a flag.
var valueKinds = map[string]string{"dir": "dir", "iface": "iface"}

var usageFlagLine = regexp.MustCompile(`(?m)^ {4}(--[a-z-]+)(?: [A-Z_:]+)?\s+(\S.*)$`)

func (c shellCommand) shellFlags() []shellFlag {
	if c.flags == nil {
		return nil
	}
	about := map[string]string{}
	for _, m := range usageFlagLine.FindAllStringSubmatch(c.usage, -1) {
		about[strings.TrimLeft(m[1], "-")] = firstClause(m[2])
	}
	var out []shellFlag
	c.flags.VisitAll(func(f *flag.Flag) {
		b, isBool := f.Value.(interface{ IsBoolFlag() bool })
		out = append(out, shellFlag{name: f.Name, value: !(isBool && b.IsBoolFlag()), about: about[f.Name]})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// firstClause is the part of a usage line that stands alone: up to a
// parenthesis, a colon or a semicolon, without a trailing comma; when
// that is only a lead-in ("with --to: the receiver there is..."), what
// follows the colon.
func firstClause(s string) string {
	if i := strings.Index(s, ": "); i >= 0 && i < 12 {
		s = s[i+2:]
	}
	for _, sep := range []string{" (", ": ", ";"} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimRight(shellSafe(s), " ,")
}

// shellSafe keeps what every shell's quoting here takes as it is: the
// descriptions lose quotes, brackets, colons and the like.
func shellSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == ':':
			return ' '
		case strings.ContainsRune("'\"`$\\[];(){}<>|&*?!#", r):
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

func cmdCompletion(p *printer, args []string) error {
	fs := newFlagSet("completion")
	operands, err := parseArgs(fs, args)
	if err == errHelp {
		p.stdoutText(completionUsage)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return usagef("run 'ferry completion bash', 'zsh' or 'fish'", "name one shell")
	}
	var script string
	switch operands[0] {
	case "bash":
		script = bashCompletion(shellCommands())
	case "zsh":
		script = zshCompletion(shellCommands())
	case "fish":
		script = fishCompletion(shellCommands())
	default:
		return usagef("run 'ferry completion bash', 'zsh' or 'fish'", "no completion for shell %q", operands[0])
	}
	p.stdoutText(script)
	return nil
}

func names(c shellCommand) string { return strings.Join(append([]string{c.name}, c.aliases...), "|") }

func bashCompletion(cmds []shellCommand) string {
	var b strings.Builder
	var all []string
	for _, c := range cmds {
		all = append(all, c.name)
	}
	b.WriteString("# bash completion for ferry, printed by 'ferry completion bash'\n")
	b.WriteString("_ferry() {\n")
	b.WriteString("    local cur prev cmd flags valued\n")
	b.WriteString("    COMPREPLY=()\n")
	b.WriteString("    cur=${COMP_WORDS[COMP_CWORD]}\n")
	b.WriteString("    prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("    if [[ $COMP_CWORD -eq 1 ]]; then\n")
	fmt.Fprintf(&b, "        mapfile -t COMPREPLY < <(compgen -W '%s' -- \"$cur\")\n", strings.Join(all, " "))
	b.WriteString("        return 0\n    fi\n")
	b.WriteString("    cmd=${COMP_WORDS[1]}\n")
	b.WriteString("    case $cmd in\n")
	for _, c := range cmds {
		var fl, val []string
		for _, f := range c.shellFlags() {
			fl = append(fl, f.dash())
			if f.value {
				val = append(val, f.dash())
			}
		}
		fmt.Fprintf(&b, "        %s) flags='%s'; valued='%s' ;;\n", names(c), strings.Join(fl, " "), strings.Join(val, " "))
	}
	b.WriteString("        *) return 0 ;;\n    esac\n")
	b.WriteString("    if [[ \" $valued \" == *\" $prev \"* ]]; then\n")
	b.WriteString("        case $prev in\n")
	b.WriteString("            --dir) mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;\n")
	b.WriteString("            --iface) mapfile -t COMPREPLY < <(compgen -W \"$(command ls /sys/class/net 2>/dev/null)\" -- \"$cur\") ;;\n")
	b.WriteString("        esac\n        return 0\n    fi\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n")
	b.WriteString("        mapfile -t COMPREPLY < <(compgen -W \"$flags\" -- \"$cur\")\n        return 0\n    fi\n")
	b.WriteString("    case $cmd in\n")
	for _, c := range cmds {
		switch {
		case c.args == "files":
			fmt.Fprintf(&b, "        %s) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;\n", names(c))
		case c.args != "":
			fmt.Fprintf(&b, "        %s) [[ $COMP_CWORD -eq 2 ]] && mapfile -t COMPREPLY < <(compgen -W '%s' -- \"$cur\") ;;\n", names(c), c.args)
		}
	}
	b.WriteString("    esac\n    return 0\n}\n")
	b.WriteString("complete -F _ferry ferry\n")
	return b.String()
}

func zshCompletion(cmds []shellCommand) string {
	var b strings.Builder
	b.WriteString("#compdef ferry\n# zsh completion for ferry, printed by 'ferry completion zsh'\n\n")
	b.WriteString("_ferry() {\n")
	b.WriteString("    local -a commands\n    commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "        '%s:%s'\n", c.name, shellSafe(c.about))
	}
	b.WriteString("    )\n")
	b.WriteString("    if (( CURRENT == 2 )); then\n        _describe -t commands 'ferry command' commands\n        return\n    fi\n")
	b.WriteString("    local cmd=$words[2]\n    shift words\n    (( CURRENT-- ))\n")
	b.WriteString("    case $cmd in\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "        (%s)\n            _arguments -s \\\n", names(c))
		for _, f := range c.shellFlags() {
			spec := f.dash()
			if f.about != "" {
				spec += "[" + f.about + "]"
			}
			if f.value {
				switch valueKinds[f.name] {
				case "dir":
					spec += ":folder:_files -/"
				case "iface":
					spec += ":interface:_net_interfaces"
				default:
					spec += ":" + f.name + ": "
				}
			}
			fmt.Fprintf(&b, "                '%s' \\\n", spec)
		}
		switch {
		case c.args == "files":
			b.WriteString("                '*:path:_files'\n")
		case c.args != "":
			fmt.Fprintf(&b, "                '1:argument:(%s)'\n", c.args)
		default:
			b.WriteString("                && return\n")
		}
		b.WriteString("            ;;\n")
	}
	b.WriteString("    esac\n}\n\n")
	// Sourced directly (not autoloaded from $fpath), the file defines the
	// function and registers it; autoloaded, it runs it.
	b.WriteString("if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n    _ferry \"$@\"\nelse\n    compdef _ferry ferry\nfi\n")
	return b.String()
}

func fishCompletion(cmds []shellCommand) string {
	var b strings.Builder
	var all []string
	for _, c := range cmds {
		all = append(all, c.name)
		all = append(all, c.aliases...)
	}
	b.WriteString("# fish completion for ferry, printed by 'ferry completion fish'\n")
	b.WriteString("complete -c ferry -f\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c ferry -n 'not __fish_seen_subcommand_from %s' -a %s -d '%s'\n", strings.Join(all, " "), c.name, shellSafe(c.about))
	}
	for _, c := range cmds {
		cond := fmt.Sprintf("-n '__fish_seen_subcommand_from %s'", strings.Join(append([]string{c.name}, c.aliases...), " "))
		for _, f := range c.shellFlags() {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			line := fmt.Sprintf("complete -c ferry %s %s", cond, opt)
			if f.value {
				line += " -r"
				switch valueKinds[f.name] {
				case "dir":
					line += " -a '(__fish_complete_directories)'"
				case "iface":
					line += " -a '(command ls /sys/class/net 2>/dev/null)'"
				}
			}
			if f.about != "" {
				line += fmt.Sprintf(" -d '%s'", f.about)
			}
			b.WriteString(line + "\n")
		}
		switch {
		case c.args == "files":
			fmt.Fprintf(&b, "complete -c ferry %s -F\n", cond)
		case c.args != "":
			fmt.Fprintf(&b, "complete -c ferry %s -a '%s'\n", cond, c.args)
		}
	}
	return b.String()
}
