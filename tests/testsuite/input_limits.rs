//! Hostile input: each case ends in an error that names the file, within
//! the limits docs/limits.md states, in bounded time and memory.
//!
//! Bounds are measured, not timed: every run here is made under
//! `ulimit -v` (address space) and `ulimit -t` (CPU seconds) — a run that
//! went past them would be killed by a signal, and the test asserts that
//! the process exited with a code of its own. A run that waits without
//! using CPU (a FIFO read that nobody writes) is ended by `timeout` after
//! WALL_SECONDS, and fails its test instead of hanging the suite. The
//! bounds are generous for
//! a debug build on a busy machine, and far below what the input would
//! take if it were read without its limit (the alias bomb expands to 3.9
//! billion nodes; the sparse file is 10 GiB).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Address space for one run, in KiB (`ulimit -v`).
const MEMORY_KIB: u64 = 1_200_000;
/// CPU seconds for one run (`ulimit -t`).
const CPU_SECONDS: u64 = 60;
/// Wall-clock seconds for one run (`timeout`: exit code 124 past it).
const WALL_SECONDS: u64 = 180;

/// `sh` that runs its arguments under the memory, CPU and wall-clock
/// limits.
fn limited() -> Command {
    limited_to(CPU_SECONDS)
}

/// [`limited`], with `cpu` seconds of CPU.
fn limited_to(cpu: u64) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB} && ulimit -t {cpu} && exec timeout -k 5 {WALL_SECONDS} \"$@\""))
        .arg("sh");
    cmd
}

fn bin() -> PathBuf {
    std::env::var_os("TEARDOWN_BIN").map(PathBuf::from).unwrap_or_else(|| assert_cmd::cargo::cargo_bin("teardown"))
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run teardown under the limits, `stdin` on its standard input; panics if
/// it did not exit on its own (a signal: a limit hit, a crash; or still
/// running after WALL_SECONDS).
fn bounded_with(args: &[&str], stdin: Option<std::fs::File>, prefix: &[&str]) -> Run {
    bounded_cpu(args, stdin, prefix, CPU_SECONDS)
}

/// [`bounded_with`], with `cpu` seconds of CPU.
fn bounded_cpu(args: &[&str], stdin: Option<std::fs::File>, prefix: &[&str], cpu: u64) -> Run {
    let mut cmd = limited_to(cpu);
    cmd.args(prefix).arg(bin()).args(args).env_remove("NO_COLOR").current_dir(env!("CARGO_MANIFEST_DIR"));
    match stdin {
        Some(f) => cmd.stdin(f),
        None => cmd.stdin(std::process::Stdio::null()),
    };
    let out = cmd.output().expect("runs");
    use std::os::unix::process::ExitStatusExt;
    let code = out.status.code().unwrap_or_else(|| {
        panic!(
            "{args:?}: killed by signal {:?} (past a limit, or a crash): {}",
            out.status.signal(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_ne!(code, 124, "{args:?}: still running after {WALL_SECONDS} s: {}", String::from_utf8_lossy(&out.stderr));
    Run {
        code,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn bounded(args: &[&str]) -> Run {
    bounded_with(args, None, &[])
}

/// `plan --all` on `file` refuses it: exit 2, and the error names the file
/// and says `says`.
fn refused(file: &Path, says: &str, extra: &[&str]) -> Run {
    let name = file.to_string_lossy();
    let mut args = vec!["plan", "--all"];
    args.extend_from_slice(extra);
    args.push(&name);
    let r = bounded(&args);
    assert_eq!(r.code, 2, "{name}: {}", r.stderr);
    assert_eq!(r.stdout, "", "{name}");
    assert!(r.stderr.contains(&*name), "the error names {name}: {}", r.stderr);
    assert!(r.stderr.contains(says), "{name}: wanted {says:?}: {}", r.stderr);
    // The error quotes the input, never all of it.
    assert!(r.stderr.len() < 8000, "{name}: {} bytes on stderr", r.stderr.len());
    r
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

/// Nine anchors, each a list of nine aliases of the one before: 9^10
/// (3.5 billion) strings once expanded. `indent` spaces before each line.
fn alias_bomb(indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut s = format!("{pad}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        s.push_str(&format!("{pad}a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
    }
    s
}

#[test]
fn alias_bombs_are_refused_in_every_dialect() {
    let d = tmp();
    let cases = [
        ("kubernetes.yaml", format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nspec:\n{}", alias_bomb(2))),
        (
            "kubernetes-labels.yaml",
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n{}", alias_bomb(4)),
        ),
        (
            "krake.yaml",
            format!("api: kubernetes\nkind: Application\nmetadata:\n  name: a\n  namespace: x\nspec:\n{}", alias_bomb(2)),
        ),
        ("murano.yaml", format!("'?': {{id: env, type: io.murano.Environment}}\nbomb:\n{}", alias_bomb(2))),
        (
            "kubevela.yaml",
            format!(
                "apiVersion: core.oam.dev/v1beta1\nkind: Application\nmetadata:\n  name: a\n  namespace: x\nspec:\n  components: []\n  x:\n{}",
                alias_bomb(4)
            ),
        ),
        ("native.yaml", format!("resources:\n- id: a\n  x:\n{}", alias_bomb(4))),
    ];
    for (name, text) in cases {
        let p = write(d.path(), name, text);
        refused(&p, "repetition limit exceeded", &[]);
    }
    // The pairs dialect reads words, not YAML: `*a` is a word like any other.
    let p = write(d.path(), "pairs.txt", "*a0 &a0\n");
    let r = bounded(&["plan", "--all", "--dialect", "pairs", "-o", "names", &p.to_string_lossy()]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "*a0\n&a0\n"), "{}", r.stderr);
}

/// One anchored node of 4,000 strings of 95 bytes, aliased 8,000 times:
/// 32 million nodes (3 GB of text) from 0.5 MB, each alias one jump, so
/// serde_yaml's own limit (100 jumps an event) lets it through. `flow`:
/// the node as a flow sequence (which only serde_yaml reads), else as a
/// block sequence below `big: &big` (which the fast path reads).
fn wide_aliases(flow: bool) -> String {
    let item = |i: usize| format!("{}{i:05}", "x".repeat(90));
    let big = if flow {
        format!(" &big [{}]\n", (0..4000).map(item).collect::<Vec<_>>().join(", "))
    } else {
        format!(" &big\n{}", (0..4000).map(|i| format!("    - {}\n", item(i))).collect::<String>())
    };
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nspec:\n  big:{big}  uses:\n{}",
        "  - *big\n".repeat(8000)
    )
}

#[test]
fn aliases_that_expand_a_document_out_of_proportion_are_refused() {
    // Before, the flow form took 5.8 GB and 29 s (the guard expanded it into
    // a value) and was then read; the block form took 7 s and was read.
    let d = tmp();
    for flow in [true, false] {
        let p = write(d.path(), &format!("wide-{flow}.yaml"), wide_aliases(flow));
        refused(&p, "repetition limit exceeded: with its aliases expanded, the document holds more than", &[]);
        let r = bounded_cpu(&["check", &p.to_string_lossy()], None, &[], 10);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stdout.contains("repetition limit exceeded"), "{}", r.stdout);
    }
}

#[test]
fn deep_nesting_is_refused_in_every_position() {
    let d = tmp();
    let n = 100_000;
    let (open, close) = ("[".repeat(n), "]".repeat(n));
    let (open_map, close_map) = ("{a: ".repeat(n), "}".repeat(n));
    let (open_json_map, close_json_map) = ("{\"a\": ".repeat(n), "}".repeat(n));
    let block: String = (0..1000).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
    let cases = [
        ("metadata.yaml", format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {open_map}1{close_map}\n")),
        ("metadata-block.yaml", format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  x:\n{}", block.lines().map(|l| format!("   {l}\n")).collect::<String>())),
        ("spec.yaml", format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nspec: {open}{close}\n")),
        ("murano.yaml", format!("'?': {{id: env, type: io.murano.Environment}}\nprops: {open}{close}\n")),
        ("native.yaml", format!("resources:\n- id: a\n  x: {open}{close}\n")),
        ("list.yaml", format!("apiVersion: v1\nkind: List\nitems:\n- {open}{close}\n")),
        ("metadata.json", format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"a\", \"labels\": {open_json_map}1{close_json_map}}}}}")),
        ("spec.json", format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"a\"}}, \"spec\": {open}{close}}}")),
        ("murano.json", format!("{{\"?\": {{\"id\": \"env\", \"type\": \"E\"}}, \"props\": {open}{close}}}")),
        ("array.json", format!("[{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"a\"}}, \"data\": {open}{close}}}]")),
        ("list.json", format!("{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"a\"}}, \"data\": {open}{close}}}]}}")),
    ];
    for (name, text) in cases {
        let p = write(d.path(), name, text);
        refused(&p, "nest deeper than 512 levels", &[]);
    }
}

#[test]
fn a_100_mb_scalar_is_refused_by_the_object_size_limit_which_a_flag_raises() {
    let d = tmp();
    let big = "a".repeat(100 << 20);
    let yaml = write(
        d.path(),
        "big.yaml",
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: {big}\n"),
    );
    let r = refused(&yaml, "more than the limit of 64M (--max-object-size)", &[]);
    // The snippet shows the object's first line, not the 100 MB one.
    assert!(r.stderr.len() < 4000, "{} bytes of error", r.stderr.len());
    let json = write(
        d.path(),
        "big.json",
        format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"a\"}}, \"data\": {{\"x\": \"{big}\"}}}}"),
    );
    refused(&json, "--max-object-size", &[]);
    drop(big);
    // Raised, the same file is read.
    let r = bounded(&["plan", "--all", "-o", "names", "--max-object-size", "128M", &yaml.to_string_lossy()]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "configmap/a -n default\n"), "{}", r.stderr);
}

/// A sparse file of 10 GiB (no block written) in `dir`.
fn sparse(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    fs::File::create(&p).unwrap().set_len(10 << 30).unwrap();
    p
}

#[test]
fn a_sparse_10_gib_file_is_refused_by_its_size_before_it_is_read() {
    let d = tmp();
    let p = sparse(d.path(), "sparse.yaml");
    let r = refused(&p, "not read: 10G is more than the limit of 4G (--max-file-size)", &[]);
    assert!(r.stderr.contains("--max-file-size 16G"), "{}", r.stderr);
    // Lowered and raised: a 2 MiB file.
    let shop = fs::read_to_string("fixtures/shop.yaml").unwrap();
    let mut text = String::new();
    while text.len() < 2 << 20 {
        text.push_str("# padding\n");
    }
    text.push_str(&shop);
    let p = write(d.path(), "padded.yaml", text);
    refused(&p, "more than the limit of 1M", &["--max-file-size", "1M"]);
    let r = bounded(&["plan", "--all", "-o", "names", "--max-file-size", "4M", &p.to_string_lossy()]);
    assert_eq!((r.code, r.stdout.lines().count()), (0, 12), "{}", r.stderr);
}

#[test]
fn standard_input_past_the_limit_is_refused_once_that_much_is_read() {
    let d = tmp();
    let p = write(d.path(), "zeros", vec![b' '; 3 << 20]);
    let r = bounded_with(&["plan", "--all", "--max-file-size", "1M", "-"], Some(fs::File::open(&p).unwrap()), &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("<stdin>: not read: more than the limit of 1M (--max-file-size)"), "{}", r.stderr);
}

#[test]
fn duplicate_keys_are_refused_where_teardown_reads_them() {
    let d = tmp();
    let cases = [
        ("name.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n", "duplicate field `name`"),
        ("labels.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: \"1\", x: \"2\"}\n", "metadata.labels: duplicate key `x`"),
        ("annotations.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: \"1\"\n    x: \"2\"\n", "metadata.annotations: duplicate key `x`"),
        ("name.json", "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}", "duplicate field `name`"),
        ("labels.json", "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\", \"labels\": {\"x\": \"1\", \"x\": \"2\"}}}", "duplicate key `x`"),
    ];
    for (name, text, says) in cases {
        let p = write(d.path(), name, text);
        refused(&p, says, &[]);
    }
}

#[test]
fn huge_numbers_are_refused_where_teardown_reads_them() {
    let d = tmp();
    let nines = "9".repeat(100_000);
    let cases = [
        ("name.yaml", format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {nines}\n"), "` is a number to kubectl (YAML 1.1) where a string belongs"),
        ("name.json", format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": {nines}}}}}"), "JSON"),
        (
            "wave.yaml",
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    argocd.argoproj.io/sync-wave: \"{nines}\"\n"),
            "sync-wave",
        ),
        ("murano.json", format!("{{\"?\": {{\"id\": {nines}, \"type\": \"E\"}}}}"), "number out of range"),
    ];
    for (name, text, says) in cases {
        let p = write(d.path(), name, text);
        refused(&p, says, &[]);
    }
    // Where teardown does not read it, a number is skipped like any value.
    let p = write(
        d.path(),
        "replicas.yaml",
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: {nines}\n"),
    );
    let r = bounded(&["plan", "--all", "-o", "names", &p.to_string_lossy()]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "deployment.apps/a -n default\n"), "{}", r.stderr);
}

#[test]
fn invalid_utf8_and_nul_bytes_are_refused() {
    let d = tmp();
    let cases: [(&str, &[u8], &str); 4] = [
        ("latin1.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n", "not valid UTF-8"),
        (
            "nul.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\x00b\n",
            "control characters are not allowed",
        ),
        (
            "nul.json",
            b"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\\u0000b\"}}",
            "a control character (U+0000)",
        ),
        (
            "escape.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"a\\x1b[2Jb\"\n",
            "a control character (U+001B)",
        ),
    ];
    for (name, text, says) in cases {
        let p = write(d.path(), name, text);
        let r = refused(&p, says, &[]);
        // Where: the line of the byte.
        assert!(
            r.stderr.contains(&format!("{}:4:", p.to_string_lossy())) || name == "nul.json",
            "{name}: {}",
            r.stderr
        );
    }
}

/// `dir/` under `root`, holding a copy of fixtures/shop.yaml.
fn shop_dir(root: &Path) -> PathBuf {
    let dir = root.join("dir");
    fs::create_dir(&dir).unwrap();
    fs::copy("fixtures/shop.yaml", dir.join("shop.yaml")).unwrap();
    dir
}

#[test]
fn symlink_loops_neither_hang_nor_vanish() {
    let d = tmp();
    let dir = shop_dir(d.path());
    std::os::unix::fs::symlink("b.yaml", dir.join("a.yaml")).unwrap();
    std::os::unix::fs::symlink("a.yaml", dir.join("b.yaml")).unwrap();
    // A directory that links to itself is not walked again.
    std::os::unix::fs::symlink(".", dir.join("self")).unwrap();
    // Links in a directory are not followed (as ripgrep does not): each
    // is a note.
    let r = bounded(&["plan", "--all", "-o", "names", &dir.to_string_lossy()]);
    assert_eq!((r.code, r.stdout.lines().count()), (0, 12), "{}", r.stderr);
    assert!(r.stderr.contains("a.yaml: not read: a symbolic link (-L/--follow"), "{}", r.stderr);
    // Followed (-L), the loop is an error naming it.
    let r = refused(&dir, "a.yaml: cannot read", &["-L"]);
    assert!(r.stderr.contains("b.yaml: cannot read"), "{}", r.stderr);
    assert!(r.stderr.contains("symbolic links"), "{}", r.stderr);
    assert!(r.stderr.contains("self: not read: a symbolic link to "), "{}", r.stderr);
    refused(&dir.join("a.yaml"), "a.yaml: cannot read", &[]);
}

#[test]
fn fifos_and_sockets_in_a_directory_are_not_read() {
    use std::os::unix::net::UnixListener;
    let d = tmp();
    let dir = shop_dir(d.path());
    assert!(Command::new("mkfifo").arg(dir.join("pipe.yaml")).status().unwrap().success());
    let _socket = UnixListener::bind(dir.join("sock.yaml")).unwrap();
    // Nobody writes to the FIFO: reading it would wait forever (and the
    // CPU limit would not end the wait).
    let r = bounded(&["plan", "--all", "-o", "names", &dir.to_string_lossy()]);
    assert_eq!((r.code, r.stdout.lines().count()), (0, 12), "{}", r.stderr);
    assert!(r.stderr.contains("pipe.yaml: not read: a FIFO"), "{}", r.stderr);
    assert!(r.stderr.contains("sock.yaml: not read: a socket"), "{}", r.stderr);
}

/// As root, permissions do not stop a read: the run drops to `nobody`.
fn as_unprivileged() -> Vec<&'static str> {
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
    if root {
        vec!["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    } else {
        Vec::new()
    }
}

#[test]
fn unreadable_files_and_directories_are_errors_that_name_them() {
    use std::os::unix::fs::PermissionsExt;
    let prefix = as_unprivileged();
    // A place `nobody` can reach, with the binary in it.
    let d = tempfile::Builder::new().prefix("teardown-perm").tempdir_in("/tmp").unwrap();
    fs::set_permissions(d.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let copy = d.path().join("teardown");
    fs::copy(bin(), &copy).unwrap();
    let dir = d.path().join("in");
    fs::create_dir(&dir).unwrap();
    fs::copy("fixtures/shop.yaml", dir.join("shop.yaml")).unwrap();
    let secret = write(&dir, "secret.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n");
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    let closed = dir.join("closed");
    fs::create_dir(&closed).unwrap();
    write(&closed, "x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
    fs::set_permissions(&closed, fs::Permissions::from_mode(0o000)).unwrap();
    for p in [&dir, d.path(), &dir.join("shop.yaml")] {
        fs::set_permissions(p, fs::Permissions::from_mode(if p.is_dir() { 0o755 } else { 0o644 })).unwrap();
    }
    let out = limited().args(&prefix).arg(&copy).args(["plan", "--all", &dir.to_string_lossy()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    fs::set_permissions(&closed, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("{}: cannot read: Permission denied", secret.display())), "{stderr}");
    assert!(stderr.contains(&format!("{}: cannot read: Permission denied", closed.display())), "{stderr}");
}

#[test]
fn a_file_that_changes_while_it_is_read_is_refused() {
    // A file that keeps growing as teardown reads it: whichever moment it
    // is read at, what was read is not the file that was opened.
    let d = tmp();
    let p = d.path().join("growing.yaml");
    let shop = fs::read_to_string("fixtures/shop.yaml").unwrap();
    let mut text = String::new();
    while text.len() < 32 << 20 {
        text.push_str(&shop);
        text.push_str("---\n");
    }
    // Same objects again and again: one object each, so nothing but the
    // change is wrong with it.
    fs::write(&p, &text).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (p, stop) = (p.clone(), stop.clone());
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = fs::OpenOptions::new().append(true).open(p).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                f.write_all(b"# more\n").unwrap();
            }
        })
    };
    let r = bounded(&["plan", "--all", "-o", "names", &p.to_string_lossy()]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{}: changed while it was read", p.display())), "{}", r.stderr);
    // Truncated as it is read: never a crash (a memory-mapped file would
    // end in SIGBUS), a refusal or a consistent read.
    fs::write(&p, &text).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (p, stop, text) = (p.clone(), stop.clone(), text.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                fs::write(&p, "").unwrap();
                fs::write(&p, &text).unwrap();
            }
        })
    };
    for _ in 0..3 {
        let r = bounded(&["check", &p.to_string_lossy()]);
        assert!(matches!(r.code, 0..=2), "{}", r.stderr);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
}

#[test]
fn a_huge_settings_file_is_refused_unread() {
    let d = tmp();
    let p = d.path().join("teardown.toml");
    fs::File::create(&p).unwrap().set_len(10 << 30).unwrap();
    let r = bounded(&["check", "--config", &p.to_string_lossy(), "fixtures/shop.yaml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{}: not read: larger than 1024 KiB", p.display())), "{}", r.stderr);
}

#[test]
fn a_hostile_plan_file_is_refused_by_apply_too() {
    let d = tmp();
    let p = sparse(d.path(), "plan.json");
    let r = bounded(&["apply", "--dry-run", &p.to_string_lossy()]);
    assert_ne!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains(&*p.to_string_lossy()), "{}", r.stderr);
    assert!(r.stderr.contains("more than the limit of 4G (--max-file-size)"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// Issue 33: reading never leaks or hangs; output never lies.

/// A character no text output may carry as it is (`teardown::escape`):
/// C0 and C1 controls but a line break, DEL, bidirectional controls, the
/// line and paragraph separators.
fn raw_control(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            || matches!(c, '\u{2028}' | '\u{2029}')
    })
}

#[test]
fn a_symbolic_link_in_a_directory_never_reads_a_file_outside_it() {
    use std::os::unix::fs::symlink;
    let d = tmp();
    // Outside the directory given: a secret, and a directory of them.
    let secret = write(d.path(), "secret.yaml", "password: hunter2-of-the-ci-machine\n");
    let vault = d.path().join("vault");
    fs::create_dir(&vault).unwrap();
    write(&vault, "key.yaml", "token: hunter2-of-the-vault\n");
    let dir = shop_dir(d.path());
    symlink(&secret, dir.join("leak.yaml")).unwrap();
    symlink("../secret.yaml", dir.join("relative.yaml")).unwrap();
    symlink(&vault, dir.join("vault")).unwrap();
    // Inside it: a ConfigMap in a hidden directory (not walked), and a link to it.
    fs::create_dir(dir.join(".hidden")).unwrap();
    write(
        &dir.join(".hidden"),
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: linked, namespace: shop}\n",
    );
    symlink(".hidden/cm.yaml", dir.join("linked.yaml")).unwrap();
    let d_ = dir.to_string_lossy();
    for follow in [&[][..], &["-L"][..]] {
        for command in [&["check"][..], &["plan", "--all", "-o", "names"], &["graph"]] {
            let mut args = command.to_vec();
            args.extend(follow);
            args.push(&d_);
            let r = bounded(&args);
            assert!(
                !r.stdout.contains("hunter2") && !r.stderr.contains("hunter2"),
                "{args:?}: {}{}",
                r.stdout,
                r.stderr
            );
            assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
            let said = format!("{}{}", r.stdout, r.stderr);
            for link in ["leak.yaml", "relative.yaml", "vault"] {
                assert!(said.contains(&format!("{link}: not read: a symbolic link")), "{args:?} {link}: {said}");
            }
            if !follow.is_empty() {
                assert!(said.contains("outside "), "{args:?}: {said}");
            }
            // A link that stays inside is followed with -L only.
            if command[0] == "plan" {
                assert_eq!(r.stdout.contains("configmap/linked -n shop"), !follow.is_empty(), "{args:?}: {}", r.stdout);
            }
        }
    }
    // Named on the command line, a link is read wherever it leads.
    let r = bounded(&["check", &dir.join("leak.yaml").to_string_lossy()]);
    assert!(r.stdout.contains("hunter2-of-the-ci-machine"), "{}", r.stdout);
}

#[test]
fn a_device_or_stream_of_nul_bytes_is_refused_at_the_first_one() {
    // Read as standard input is (up to --max-file-size, 4 GiB), /dev/zero
    // ran out of memory; no YAML or JSON holds a NUL byte.
    for args in [&["check", "/dev/zero"][..], &["plan", "--all", "/dev/zero"]] {
        let r = bounded(args);
        let said = format!("{}{}", r.stdout, r.stderr);
        assert_eq!(r.code, 2, "{args:?}: {said}");
        assert!(said.contains("/dev/zero: not read: a NUL byte at offset 0"), "{args:?}: {said}");
        assert!(!said.contains("out of memory"), "{said}");
    }
    let r = bounded_with(&["plan", "--all", "-"], Some(fs::File::open("/dev/zero").unwrap()), &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("<stdin>: not read: a NUL byte at offset 0"), "{}", r.stderr);
    // Random bytes: a NUL or a byte that is not UTF-8, in the first chunk.
    let r = bounded_with(&["plan", "--all", "-"], Some(fs::File::open("/dev/urandom").unwrap()), &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("NUL byte") || r.stderr.contains("not valid UTF-8"), "{}", r.stderr);
}

#[test]
fn unusable_documents_are_counted_past_the_first_thousand() {
    // 600 KB of `{}`: 200,000 TD001 findings, each held and printed whole
    // (a miette report each); ten million (30 MB) took 5.7 GB and more than
    // five minutes. The first 1000 of a rule are listed, the rest counted.
    let d = tmp();
    let p = write(d.path(), "braces.json", "{}\n".repeat(200_000));
    let p_ = p.to_string_lossy();
    let r = bounded(&["check", &p_]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stdout.matches("TD001 unusable-input: object has no `kind`").count(), 1000);
    assert!(
        r.stdout.contains(
            "… 199000 more TD001 unusable-input findings are not listed (at most 1000 findings of a rule are)"
        ),
        "{}",
        &r.stdout[r.stdout.len().saturating_sub(500)..]
    );
    assert!(
        r.stdout.ends_with("checked 1 file: 0 objects, 0 edges; 200000 errors, 0 warnings\n"),
        "{}",
        &r.stdout[r.stdout.len().saturating_sub(500)..]
    );
    let r = bounded(&["check", "-o", "json", &p_]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 1000);
    assert_eq!(
        v["omitted"],
        serde_json::json!([{"rule": "TD001", "name": "unusable-input", "severity": "error", "count": 199000}])
    );
    assert_eq!(v["summary"]["errors"], 200_000);
    let r = bounded(&["check", "--statistics", &p_]);
    assert!(r.stdout.contains("| 200000 | TD001 | error"), "{}", r.stdout);
    // plan refuses, counting them all.
    let r = bounded(&["plan", "--all", &p_]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("(200000 TD001 findings above)"), "{}", &r.stderr[r.stderr.len().saturating_sub(500)..]);
    assert!(r.stderr.len() < 1 << 20, "{} bytes on stderr", r.stderr.len());
}

#[test]
fn one_object_with_200000_owner_references_is_checked_in_linear_time() {
    // Each reference's place was searched for from the object's start:
    // 44 s of CPU (release) for its 200,000 findings, quadratic; 2.3 s
    // now in a debug build.
    let d = tmp();
    let refs: Vec<String> = (0..200_000)
        .map(|i| format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"name\": \"o{i}\", \"uid\": \"u{i}\"}}"))
        .collect();
    let text = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"victim\", \"namespace\": \"a\", \"ownerReferences\": [{}]}}}}",
        refs.join(", ")
    );
    let p = write(d.path(), "owners.json", text);
    let r = bounded_cpu(&["check", "-o", "json", &p.to_string_lossy()], None, &[], 20);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["summary"]["warnings"], 200_000);
    let listed = v["findings"].as_array().unwrap();
    assert_eq!(listed.len(), 1000);
    // Each finding points at its own reference's uid.
    let at = |f: &serde_json::Value| f["column"].as_u64().unwrap();
    assert!(listed.windows(2).all(|w| at(&w[0]) < at(&w[1])), "in order, each at its own place");
    let last = &listed[999];
    assert!(last["message"].as_str().unwrap().contains("(uid u999)"), "{last}");
    let column = at(last) as usize;
    assert_eq!(&fs::read_to_string(&p).unwrap()[column - 1..column - 1 + 4], "u999");
}

/// A snapshot whose ids, names and file names hold what a terminal would
/// act on: a carriage return that sends the cursor back (so that a deleted
/// object reads as kept), escape sequences, a bidirectional override, a
/// line separator, a line break.
fn hostile_names(root: &Path) -> PathBuf {
    let dir = root.join("in");
    fs::create_dir(&dir).unwrap();
    write(
        &dir,
        "native.yaml",
        "resources:\n- id: \"web\\r1  keep\"\n  destroyAfter: [\"db\\e[8m\"]\n- id: \"db\\e[8m\"\n  owners: [\"ab\\u202edc\"]\n- id: \"ab\\u202edc\"\n- id: \"line\\u2028sep\\nbreak\"\n  destroyAfter: [\"gone\\e]0;title\\a\"]\n",
    );
    // File names: a carriage return, an escape sequence. (An error in the
    // second, on a line with an escape in a comment: a snippet.)
    write(&dir, "cr\rname.yaml", "resources:\n- id: other\n");
    write(&dir, "esc\x1b[2Jname.yaml", "resources:\n- id: x # \x1b[2J\x1b[8m hidden\n  owners: 3\n");
    dir
}

#[test]
fn no_raw_control_character_from_the_input_reaches_a_text_output() {
    let d = tmp();
    let dir = hostile_names(d.path());
    let dir_ = dir.to_string_lossy();
    let native = dir.join("native.yaml");
    let native_ = native.to_string_lossy();
    let runs: Vec<Vec<&str>> = vec![
        vec!["check", &dir_],
        vec!["check", "-o", "github", &dir_],
        vec!["plan", "--all", &native_],
        vec!["plan", "--all", "--skip-invalid", &dir_],
        vec!["plan", "--all", "-o", "dot", &native_],
        vec!["plan", "--all", "-o", "mermaid", &native_],
        vec!["plan", "--all", "-o", "refs", &native_],
        vec!["plan", "--all", "-o", "names", &native_],
        vec!["plan", "--all", "--cascade", "orphan", &native_],
        vec!["graph", &native_],
        vec!["graph", "-o", "dot", &native_],
        vec!["graph", "-o", "mermaid", &native_],
        vec!["graph", "-o", "refs", &native_],
        vec!["explain", "--all", "id:db\x1b[8m", &native_],
        vec!["explain", "--all", "id:nothing", &native_],
    ];
    for args in &runs {
        let r = bounded(args);
        for (what, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            if let Some(c) = raw_control(text) {
                panic!("{args:?}: {what} holds {c:?}:\n{text}");
            }
        }
    }
    // The carriage return no longer hides `delete`.
    let r = bounded(&["plan", "--all", &native_]);
    assert!(r.stdout.contains("delete  web\\r1  keep"), "{}", r.stdout);
    // Mermaid labels hold no markup; DOT stays valid.
    let r = bounded(&["graph", "-o", "mermaid", &native_]);
    assert!(r.stdout.contains("[\"db\\u{1b}[8m\"]"), "{}", r.stdout);
    // A snippet of a line with escape sequences, escaped, under a file
    // name with one.
    let r = bounded(&["check", &dir_]);
    assert!(r.stdout.contains("esc\\u{1b}[2Jname.yaml:2:11]"), "{}", r.stdout);
    assert!(r.stdout.contains("- id: x # \\u{1b}[2J\\u{1b}[8m hidden"), "{}", r.stdout);
    // apply --dry-run names the files it would change, escaped.
    let plan = d.path().join("plan.json");
    let r = bounded(&["plan", "--all", "-o", "json", &native_]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    fs::write(&plan, &r.stdout).unwrap();
    let r = bounded(&["apply", "--dry-run", &plan.to_string_lossy()]);
    for (what, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        assert!(raw_control(text).is_none(), "apply --dry-run: {what}: {text}");
    }
}

#[test]
fn kubernetes_names_the_api_server_refuses_are_unusable() {
    let d = tmp();
    let object = |api: &str, kind: &str, name: &str| {
        format!("apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: shop\n")
    };
    // A name with a carriage return made a deleted object display as kept.
    let cases = [
        ("cr.yaml", object("v1", "ConfigMap", "\"web\\r1  keep\""), "holds a control character (U+000D)"),
        ("bidi.yaml", object("example.com/v1", "Widget", "\"a\\u202eb\""), "holds a bidirectional control (U+202E)"),
        ("tab.yaml", object("rbac.authorization.k8s.io/v1", "Role", "\"a\\tb\""), "holds a control character (U+0009)"),
        ("service.yaml", object("v1", "Service", "1web"), "is not a DNS-1035 label"),
        ("pod.yaml", object("v1", "Pod", "Web"), "is not a DNS-1123 subdomain"),
        ("deployment.yaml", object("apps/v1", "Deployment", "web_1"), "is not a DNS-1123 subdomain"),
        (
            "namespace.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a.b\n".to_string(),
            "is not a DNS-1123 label",
        ),
        ("slash.yaml", object("example.com/v1", "Widget", "a/b"), "may not hold `/`"),
        ("dots.yaml", object("rbac.authorization.k8s.io/v1", "Role", "'..'"), "may not be `..`"),
        ("kind.yaml", object("v1", "\"Config\\rMap\"", "a"), "object kind `Config\\rMap` holds a control character"),
        ("ns.yaml", object("v1", "ConfigMap", "a").replace("shop", "\"sh\\rop\""), "namespace `sh\\rop` holds"),
    ];
    for (file, text, says) in cases {
        let p = write(d.path(), file, &text);
        let p_ = p.to_string_lossy();
        let r = bounded(&["check", &p_]);
        assert_eq!(r.code, 2, "{file}: {}", r.stdout);
        assert!(r.stdout.contains("TD001") && r.stdout.contains(says), "{file}: {}", r.stdout);
        assert!(raw_control(&r.stdout).is_none(), "{file}: {}", r.stdout);
        let r = bounded(&["plan", "--all", &p_]);
        assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{file}: {}", r.stderr);
    }
    // Names the API server takes: path segments for RBAC, volumes and
    // other APIs' kinds; a long subdomain label; a namespace that is a
    // template's placeholder is read (and -o names refuses it).
    let fine = [
        object("rbac.authorization.k8s.io/v1", "Role", "\"system:controller:a b\""),
        object("v1", "PersistentVolumeClaim", "Data_1"),
        object("user.openshift.io/v1", "User", "\"kube:admin\""),
        object("apps/v1", "ReplicaSet", &"a".repeat(66)),
        object("v1", "ConfigMap", "a").replace("shop", "TEST_NAMESPACE"),
    ];
    let p = write(d.path(), "fine.yaml", fine.join("---\n"));
    let r = bounded(&["check", &p.to_string_lossy()]);
    assert!(!r.stdout.contains("TD001"), "{}", r.stdout);
    // No name of the real-world dumps is refused.
    for dumps in ["fixtures/realworld"] {
        let r = bounded(&["check", "-o", "json", dumps]);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        for f in v["findings"].as_array().unwrap() {
            let m = f["message"].as_str().unwrap();
            assert!(!m.contains("DNS-") && !m.contains("path segment") && !m.contains("may not"), "{f}");
        }
    }
}
