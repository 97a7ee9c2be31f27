//! Man pages (roff), from the clap definition of the command line: the
//! whole tool on one page, or one command's page (`teardown-plan(1)`).

use clap_mangen::Man;
use std::io::{self, Write};

/// One page that holds every command: the tool's own page, then a section
/// per command with its synopsis, description, every flag and its examples
/// (the command's own sections one level down).
pub fn whole(cmd: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let man = Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    examples(cmd, out)?;
    for sub in pages(cmd) {
        let name = sub.get_display_name().unwrap_or_else(|| sub.get_name()).replace('-', " ");
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let mut text = Vec::new();
        command_sections(&Man::new(sub.clone()), sub, &mut text)?;
        for line in String::from_utf8_lossy(&text).lines() {
            match line.strip_prefix(".SH ") {
                Some(heading) => writeln!(out, ".SS {heading}")?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    man.render_version_section(out)
}

/// One command's page, `teardown-COMMAND(1)`; `cmd` is the tool (a
/// command's page has the tool's version).
pub fn page(cmd: &clap::Command, sub: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let root = Man::new(cmd.clone());
    let name = sub.get_display_name().unwrap_or_else(|| sub.get_name());
    let version = cmd.get_version().unwrap_or_default();
    let man = Man::new(sub.clone()).title(name).source(format!("{} {version}", cmd.get_name()));
    man.render_title(out)?;
    man.render_name_section(out)?;
    command_sections(&man, sub, out)?;
    root.render_version_section(out)
}

/// The commands that have a page, in the order of `--help`.
pub fn pages(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

fn command_sections(man: &Man, sub: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    examples(sub, out)
}

/// The examples `--help` ends with (clap's after-help text), one command a
/// line, as typed (not filled).
fn examples(cmd: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    if let Some(after) = cmd.get_after_help() {
        let text = after.to_string();
        let lines = text.lines().skip_while(|l| l.trim_end() == "Examples:");
        writeln!(out, ".SH EXAMPLES\n.nf")?;
        for line in lines {
            writeln!(out, "{}", roff_line(line.trim_start()))?;
        }
        writeln!(out, ".fi")?;
    }
    Ok(())
}

/// A line of literal text in roff: backslashes and minus signs as
/// themselves, and a leading `.` or `'` not read as a request.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
