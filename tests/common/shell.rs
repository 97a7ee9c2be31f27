//! A shell for pipeline tests: a directory first on PATH with a fake
//! `kubectl` that logs its calls, and the teardown under test.

use super::bin;
use std::path::Path;
use std::process::{Command, Stdio};

/// A directory first on PATH holding a fake `kubectl` (each call's
/// arguments, one a line, then `--end--`, into `calls.log`; `api-resources`
/// and `get` answer from files of the directory, as a cluster would) and
/// `teardown` (the binary under test).
pub struct Shell {
    dir: tempfile::TempDir,
}

impl Shell {
    pub fn new() -> Shell {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let kubectl = dir.path().join("kubectl");
        // `kubectl get` without a resource type prints nothing on stdout
        // and fails, as kubectl does ("You must specify the type of
        // resource to get").
        std::fs::write(
            &kubectl,
            r#"#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >> "$SHELL_DIR/calls.log"
echo --end-- >> "$SHELL_DIR/calls.log"
case "$1" in
api-resources) cat "$SHELL_DIR/api-resources.txt" ;;
get)
  for a in "$@"; do
    case "$a" in
    get|-A|--all-namespaces|-o|yaml|json|-*) ;;
    *) cat "$SHELL_DIR/cluster.yaml"; exit 0 ;;
    esac
  done
  echo 'error: You must specify the type of resource to get.' >&2; exit 1 ;;
esac
"#,
        )
        .unwrap();
        std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink(bin(), dir.path().join("teardown")).unwrap();
        Shell { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Run `script` with bash (-e -o pipefail) in the directory; (exit code, stdout, stderr).
    pub fn bash(&self, script: &str) -> (i32, String, String) {
        let path = format!("{}:{}", self.path().display(), std::env::var("PATH").unwrap_or_default());
        let out = Command::new("bash")
            .args(["-e", "-o", "pipefail", "-c", script])
            .current_dir(self.path())
            .env("PATH", path)
            .env("SHELL_DIR", self.path())
            .env("HOME", self.path())
            .env("TEARDOWN_REPO", env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The calls kubectl got, each its arguments.
    pub fn calls(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(self.path().join("calls.log")).unwrap_or_default();
        let mut calls = Vec::new();
        let mut call = Vec::new();
        for line in text.lines() {
            if line == "--end--" {
                calls.push(std::mem::take(&mut call));
            } else {
                call.push(line.to_string());
            }
        }
        assert!(call.is_empty(), "a call without its end: {call:?}");
        calls
    }
}
