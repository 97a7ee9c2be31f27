//! Output formats (issue 17, items 2 and 5): `-o names` in the form
//! `xargs -L1 kubectl delete` takes, checked against kubectl's argument
//! grammar on every fixture and passed through a real xargs to a fake
//! kubectl; `-o refs`; graph and explain in YAML, names and refs; explain's
//! `table`; colour in the plan, graph and explain tables.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;

use common::run;
use common::shell::Shell;
use serde_json::Value;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// kubectl's argument grammar, as documented for `kubectl delete`:
// `TYPE[.VERSION][.GROUP]/NAME`, then `-n NAMESPACE`.

/// One `-o names` line read as kubectl reads its arguments.
#[derive(Debug, PartialEq, Eq)]
struct Args {
    /// TYPE: a lower-case resource name.
    resource: String,
    /// GROUP, empty for the core group.
    group: String,
    name: String,
    namespace: Option<String>,
}

/// A DNS label (RFC 1123): what every namespace is.
fn dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    (1..=63).contains(&b.len())
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// A DNS subdomain (RFC 1123): what an API group is.
fn dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(dns_label)
}

/// A version as kubectl would read the first part after TYPE (`v1`,
/// `v1beta2`): a group must not start with one, or kubectl reads
/// TYPE.VERSION.GROUP.
fn version_like(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else { return false };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let tail = &rest[digits..];
    digits > 0
        && (tail.is_empty()
            || ["alpha", "beta"]
                .iter()
                .any(|p| tail.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))))
}

/// NAME, DNS-subdomain-ish: letters (any case: RBAC and Krake names have
/// capitals), digits, `-`, `.`, `_` and `:` (`system:controller:…`), from
/// a letter, digit or `_`; never `.`, `..`, nor anything xargs or a URL
/// path would read otherwise.
fn object_name(s: &str) -> bool {
    let first_ok = s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
    first_ok && s.len() <= 253 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._:".contains(&b))
}

/// Parse a line as `TYPE[.GROUP]/NAME` or `TYPE[.GROUP]/NAME -n NAMESPACE`.
fn kubectl_grammar(line: &str) -> Result<Args, String> {
    let words: Vec<&str> = line.split(' ').collect();
    let (arg, namespace) = match words.as_slice() {
        [arg] => (*arg, None),
        [arg, "-n", ns] => (*arg, Some(ns.to_string())),
        _ => return Err(format!("not `TYPE/NAME [-n NAMESPACE]`: {line:?}")),
    };
    let (resource_arg, name) = arg.split_once('/').ok_or_else(|| format!("no `/` in {arg:?}"))?;
    if name.contains('/') {
        return Err(format!("more than one `/` in {arg:?}"));
    }
    let (resource, group) = resource_arg.split_once('.').unwrap_or((resource_arg, ""));
    if resource.is_empty() || !resource.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        return Err(format!("TYPE {resource:?} is not a lower-case resource name"));
    }
    if !resource.as_bytes()[0].is_ascii_lowercase() {
        return Err(format!("TYPE {resource:?} does not start with a letter"));
    }
    if !group.is_empty() {
        if !dns_subdomain(group) {
            return Err(format!("GROUP {group:?} is not a DNS subdomain"));
        }
        if group.contains('.') && group.split('.').next().is_some_and(version_like) {
            return Err(format!("GROUP {group:?} would be read as VERSION.GROUP"));
        }
    }
    if !object_name(name) {
        return Err(format!("NAME {name:?} is not a name"));
    }
    if let Some(ns) = &namespace {
        if !dns_label(ns) {
            return Err(format!("NAMESPACE {ns:?} is not a DNS label"));
        }
    }
    Ok(Args { resource: resource.to_string(), group: group.to_string(), name: name.to_string(), namespace })
}

/// A full reference `Kind[.group]/[namespace/]name` (whose name has no
/// `/`), as the same four parts, the kind in lower case.
fn reference_parts(reference: &str) -> Args {
    let parts: Vec<&str> = reference.split('/').collect();
    let (kind_group, namespace, name) = match parts.as_slice() {
        [kg, name] => (*kg, None, *name),
        [kg, ns, name] => (*kg, Some(ns.to_string()), *name),
        _ => panic!("not a reference: {reference:?}"),
    };
    let (kind, group) = kind_group.split_once('.').unwrap_or((kind_group, ""));
    Args { resource: kind.to_lowercase(), group: group.to_string(), name: name.to_string(), namespace }
}

/// A word xargs passes as it is: no blank, quote, backslash or control
/// character, not empty.
fn xargs_word(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '\'' | '"' | '\\'))
}

/// A `-o names` line and the `-o refs` line of the same object: either an
/// id (the same line, one word), or kubectl's grammar naming exactly the
/// object the reference names.
fn check_line(names: &str, refs: &str, context: &str) {
    if names == refs && !names.contains('/') {
        assert!(xargs_word(names), "{context}: id {names:?} is not one xargs word");
        return;
    }
    let args = kubectl_grammar(names).unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(args, reference_parts(refs), "{context}: {names:?} does not name {refs:?}");
}

#[test]
fn the_grammar_checker_knows_good_from_bad() {
    let good = [
        "deployment.apps/web -n shop",
        "pod/web -n default",
        "namespace/shop",
        "clusterrole.rbac.authorization.k8s.io/system:aggregate-to-admin",
    ];
    for line in good {
        assert!(kubectl_grammar(line).is_ok(), "{line}");
    }
    let bad = [
        "Deployment.apps/shop/web",
        "deployment.apps/shop/web",
        "pod/web -n",
        "pod/web -n Shop",
        "pod/web  -n shop",
        "pod/we b",
        "pod/",
        "/web",
        "widget.v1.example.com/a",
        "pod/web --namespace shop",
        "pod/'web'",
    ];
    for line in bad {
        assert!(kubectl_grammar(line).is_err(), "{line}");
    }
}

// ---------------------------------------------------------------------------
// Every fixture.

/// Every input file under fixtures/, with the flags it is read with.
fn fixture_files() -> Vec<(PathBuf, Vec<&'static str>)> {
    let mut out = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            match path.extension().and_then(|e| e.to_str()) {
                Some("yaml" | "yml" | "json") => out.push((path, vec![])),
                Some("txt") => out.push((path, vec!["--dialect", "pairs"])),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// The references of a plan's steps, in plan order.
fn plan_refs(plan: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for step in plan["steps"].as_array().unwrap() {
        for r in step["resources"].as_array().unwrap() {
            out.push(r["ref"].as_str().unwrap().to_string());
        }
    }
    out
}

/// `-o names` of `plan --all` and of `graph` on every fixture: each line
/// follows kubectl's grammar and names the object `-o refs` names on the
/// same line; `-o refs` is the plan's references (what `-o names` printed
/// before). Returns every names line, for xargs.
fn names_of_every_fixture() -> Vec<String> {
    let files = fixture_files();
    assert!(files.len() > 150, "fixtures not found: {}", files.len());
    let mut all = Vec::new();
    let (mut plans, mut graphs, mut refused, mut several) = (0, 0, Vec::new(), 0);
    for (path, flags) in &files {
        let p = path.to_string_lossy();
        let shown = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path).display().to_string();
        for command in [&["plan", "--all", "--allow-cycles"][..], &["graph"][..]] {
            let with = |format: &str| {
                let mut args: Vec<&str> = command.to_vec();
                args.extend_from_slice(flags);
                args.extend(["-o", format, &p]);
                run(&args)
            };
            let (refs_code, refs, _) = with("refs");
            if refs_code != 0 {
                continue;
            }
            let (code, names, err) = with("names");
            if code == 2 && err.contains("-o names: the objects are in more than one namespace") {
                // Lines a plain xargs could join across namespaces (issue
                // 37): refused; narrowed to each namespace, printed.
                assert!(names.is_empty(), "{shown}: a refusal prints nothing");
                several += 1;
                let namespaces: std::collections::BTreeSet<&str> =
                    refs.lines().filter_map(|l| l.split('/').nth(1).filter(|_| l.split('/').count() == 3)).collect();
                for ns in namespaces {
                    let narrowed = |format: &str| {
                        let mut args = vec![command[0], "-n", ns];
                        if command[0] == "plan" {
                            args.push("--allow-cycles");
                        }
                        args.extend_from_slice(flags);
                        args.extend(["-o", format, &p]);
                        run(&args)
                    };
                    let ((code, names, _), (_, refs, _)) = (narrowed("names"), narrowed("refs"));
                    if code != 0 {
                        continue;
                    }
                    let (names, refs) = (lines(&names), lines(&refs));
                    assert_eq!(names.len(), refs.len(), "{shown} -n {ns}");
                    for (n, r) in names.iter().zip(&refs) {
                        check_line(n, r, &format!("{shown} {command:?} -n {ns}"));
                    }
                    all.extend(names.iter().map(|s| s.to_string()));
                }
                continue;
            }
            if code != 0 {
                // Refused: only with exit 2, saying which object and where.
                assert_eq!(code, 2, "{shown} {command:?}: {err}");
                assert!(err.contains("teardown: error: -o names: "), "{shown}: {err}");
                assert!(err.contains(&format!("({p}:")), "{shown}: {err}");
                assert!(names.is_empty(), "{shown}: a refusal prints nothing");
                refused.push(shown.clone());
                continue;
            }
            let (names, refs) = (lines(&names), lines(&refs));
            assert_eq!(names.len(), refs.len(), "{shown} {command:?}");
            for (n, r) in names.iter().zip(&refs) {
                check_line(n, r, &format!("{shown} {command:?}"));
            }
            if command[0] == "plan" {
                // -o refs is the plan's references, in plan order.
                let mut args = vec!["plan", "--all", "--allow-cycles", "-o", "json"];
                args.extend_from_slice(flags);
                args.push(&p);
                let (_, json, _) = run(&args);
                let plan: Value = serde_json::from_str(&json).unwrap();
                assert_eq!(refs, plan_refs(&plan), "{shown}");
                plans += 1;
            } else {
                graphs += 1;
            }
            all.extend(names.iter().map(|s| s.to_string()));
        }
    }
    eprintln!(
        "{plans} plans, {graphs} graphs, {} lines; refused: {refused:?}; {several} of several namespaces",
        all.len()
    );
    assert!(plans > 100 && graphs > 100 && all.len() > 3000, "too few: {plans} plans, {graphs} graphs");
    // Refused, by plan and graph alike: Deployments written as of the core
    // group (`apiVersion: v1`), and a namespace that is a template's
    // placeholder (`TEST_NAMESPACE`).
    let kpt =
        "fixtures/realworld/dependson/kpt-functions-catalog/examples/ensure-name-substring-depends-on/resources.yaml";
    let vela = "fixtures/realworld/kubevela/app-gc-policy-change.yaml";
    // (fixtures/packages/kpt holds a copy of the kpt example.)
    let copy = "fixtures/packages/kpt/kpt-functions-catalog/examples/ensure-name-substring-depends-on/resources.yaml";
    assert_eq!(refused, [copy, copy, kpt, kpt, vela, vela]);
    all
}

#[test]
fn every_fixture_names_objects_as_kubectl_takes_them_through_xargs() {
    let mut all = names_of_every_fixture();
    all.sort();
    all.dedup();
    let input: String = all.iter().map(|l| format!("{l}\n")).collect();
    let shell = Shell::new();
    std::fs::write(shell.path().join("names.txt"), &input).unwrap();
    let (code, _, stderr) = shell.bash("xargs -L1 kubectl delete < names.txt");
    assert_eq!(code, 0, "{stderr}");
    let calls = shell.calls();
    // One line, one kubectl command: `delete TYPE/NAME [-n NAMESPACE]`,
    // the words exactly as printed.
    assert_eq!(calls.len(), all.len());
    let mut namespaced = 0;
    for (line, call) in all.iter().zip(&calls) {
        let mut want = vec!["delete".to_string()];
        want.extend(line.split(' ').map(str::to_string));
        assert_eq!(call, &want, "{line}");
        if line.contains('/') {
            let args = kubectl_grammar(&call[1..].join(" ")).unwrap();
            match &args.namespace {
                Some(ns) => {
                    assert_eq!(call[2..], ["-n".to_string(), ns.clone()]);
                    namespaced += 1;
                }
                None => assert_eq!(call.len(), 2, "{call:?}"),
            }
        }
    }
    assert!(namespaced > 1000, "{namespaced}");
}

#[test]
fn names_take_the_namespace_as_kubectl_does() {
    let (code, out, err) = run(&["plan", "--delete", "deploy/web", "-o", "names", "fixtures/shop"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "pod/web-5d4f-a -n shop\npod/web-5d4f-b -n shop\nreplicaset.apps/web-5d4f -n shop\ndeployment.apps/web -n shop\n"
    );
    // Cluster-scoped objects have no -n; `default` is always written.
    let (code, out, _) = run(&["plan", "--delete", "ns/shop", "-o", "names", "fixtures/shop"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("namespace/shop"));
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("p.yaml");
    std::fs::write(&p, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n").unwrap();
    let (code, out, _) = run(&["plan", "--all", "-o", "names", &p.to_string_lossy()]);
    assert_eq!((code, out.as_str()), (0, "pod/p -n default\n"));
    // Ids for Murano, native and pairs.
    let (_, out, _) = run(&["plan", "--all", "-o", "names", "fixtures/plan/murano-app.yaml"]);
    assert_eq!(out, "VM1\nVM2\nNet\nApp\n");
    let (_, out, _) = run(&["plan", "--all", "-o", "names", "fixtures/formats/native.yaml"]);
    assert_eq!(lines(&out).len(), 4);
    assert!(lines(&out).iter().all(|l| !l.contains('/')), "{out}");
    // Krake: the api stands for the group.
    let (code, out, _) = run(&["plan", "--all", "-o", "names", "fixtures/krake/app-on-cluster.yaml"]);
    assert_eq!((code, out.as_str()), (0, "application.kubernetes/A -n testing\ncluster.kubernetes/C -n testing\n"));
}

#[test]
fn refs_are_the_full_references() {
    let (code, out, _) = run(&["plan", "--delete", "deploy/web", "-o", "refs", "fixtures/shop"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Pod/shop/web-5d4f-a\nPod/shop/web-5d4f-b\nReplicaSet.apps/shop/web-5d4f\nDeployment.apps/shop/web\n"
    );
}

// ---------------------------------------------------------------------------
// Refusals.

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

const REFS_HINT: &str =
    "; -o names prints no line that `xargs -L1 kubectl delete` could misread (-o refs prints the references as they are)\n";

#[test]
fn what_xargs_or_kubectl_would_misread_is_refused() {
    let d = tempfile::tempdir().unwrap();
    // A Role: its names are path segments to the API server (a Pod's are
    // DNS subdomains, and one with a blank is TD001 before any output).
    let pod = |name: &str, ns: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {name}\n  namespace: {ns}\n")
    };
    let p = write(&d, "space.yaml", &pod("\"we b\"", "shop"));
    let (code, out, err) = run(&["plan", "--all", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!("teardown: error: -o names: Role.rbac.authorization.k8s.io/shop/we b ({p}:4) has the name `we b`, which holds a space: xargs would split the line at it{REFS_HINT}")
    );
    // -o refs prints it as it is.
    let (code, out, _) = run(&["plan", "--all", "-o", "refs", &p]);
    assert_eq!((code, out.as_str()), (0, "Role.rbac.authorization.k8s.io/shop/we b\n"));
    let cases: &[(&str, String, &str)] = &[
        (
            "quote.yaml",
            pod("\"it's\"", "shop"),
            "has the name `it's`, which holds a single quote: xargs would read it as quoting",
        ),
        ("dquote.yaml", pod("'a\"b'", "shop"), "which holds a double quote: xargs would read it as quoting"),
        ("backslash.yaml", pod("'a\\b'", "shop"), "which holds a backslash: xargs would read it as an escape"),
        ("ns.yaml", pod("p", "Shop"), "is in the namespace `Shop`, which is not a DNS label"),
        ("ns-space.yaml", pod("p", "\"a b\""), "has the namespace `a b`, which holds a space"),
        (
            "version.yaml",
            "apiVersion: v1.example.com/v1\nkind: Widget\nmetadata:\n  name: a\n  namespace: x\n".to_string(),
            "has the group `v1.example.com`, which kubectl would read as version v1 of the group example.com",
        ),
        (
            "core.yaml",
            "apiVersion: v1\nkind: Widget\nmetadata:\n  name: a\n  namespace: x\n".to_string(),
            "is of the core group, which has no kind `Widget`: kubectl would look for `widget` in every API group",
        ),
        (
            "kind.yaml",
            "apiVersion: example.com/v1\nkind: Foo.bar\nmetadata:\n  name: a\n".to_string(),
            "has the kind `Foo.bar`, which is not a kind kubectl can be given",
        ),
        (
            "krake.yaml",
            "api: apps\nkind: Deployment\nmetadata:\n  name: a\n  namespace: x\n".to_string(),
            "is a Krake resource of the api `apps`, which kubectl could read as a Kubernetes API group",
        ),
        (
            "krake-core.yaml",
            "api: core\nkind: Pod\nmetadata:\n  name: a\n  namespace: x\n".to_string(),
            "is a Krake resource of the api `core`",
        ),
        ("native.yaml", "resources:\n- id: \"a b\"\n".to_string(), "has the id `a b`, which holds a space"),
    ];
    for (file, text, says) in cases {
        let p = write(&d, file, text);
        for command in [&["plan", "--all"][..], &["graph"][..]] {
            let mut args = command.to_vec();
            args.extend(["-o", "names", &p]);
            let (code, out, err) = run(&args);
            assert_eq!((code, out.as_str()), (2, ""), "{file} {command:?}: {err}");
            assert!(err.starts_with("teardown: error: -o names: "), "{file}: {err}");
            assert!(err.contains(says), "{file}: {err}");
            assert!(err.contains(&format!("({p}:")), "{file}: {err}");
            assert!(err.ends_with(REFS_HINT), "{file}: {err}");
        }
        let mut args = vec!["plan", "--all", "-o", "refs", &p];
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{file}: {err}");
        args[3] = "json";
        assert_eq!(run(&args).0, 0, "{file}");
    }
    // tsort pairs: a token xargs would unquote.
    let (code, out, err) = common::run_stdin(&["plan", "--all", "--dialect", "pairs", "-o", "names"], "a'b c\n");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("-o names: a'b (<stdin>:1) has the id `a'b`, which holds a single quote"), "{err}");
    let (code, out, _) = common::run_stdin(&["plan", "--all", "--dialect", "pairs", "-o", "refs"], "a'b c\n");
    assert_eq!((code, out.as_str()), (0, "a'b\nc\n"));
    // Several: the first is named, the others counted.
    let p = write(&d, "two.yaml", &format!("{}---\n{}", pod("'a b'", "x"), pod("'c d'", "x")));
    let (_, _, err) = run(&["plan", "--all", "-o", "names", &p]);
    assert!(
        err.contains("Role.rbac.authorization.k8s.io/x/a b")
            && err.contains("(1 more object cannot be printed either)"),
        "{err}"
    );
    // Explain refuses what it would name.
    let (code, out, err) = run(&["explain", "role/c d", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("-o names: Role.rbac.authorization.k8s.io/x/c d"), "{err}");
    // A tab, `/` or `..` in a name: no Kubernetes object (TD001), refused
    // before any output (tests/hostile.rs).
}

#[test]
fn a_guessed_scope_is_refused() {
    // A custom resource with no CRD in the input and no namespace: taken
    // as cluster-scoped, so a line without -n would leave the namespace to
    // kubectl's context.
    let d = tempfile::tempdir().unwrap();
    let widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
    let p = write(&d, "widget.yaml", widget);
    for command in [&["plan", "--all"][..], &["graph"][..]] {
        let mut args = command.to_vec();
        args.extend(["-o", "names", &p]);
        let (code, out, err) = run(&args);
        assert_eq!((code, out.as_str()), (2, ""), "{command:?}: {err}");
        assert_eq!(
            err,
            format!("teardown: error: -o names: Widget.example.com/w ({p}:3) has no namespace written and its kind is neither built in nor defined by a CRD in the input, so its scope is only guessed (cluster-scoped): if it is namespaced, kubectl's current namespace would decide what is deleted; add its CRD to the input or give its namespace{REFS_HINT}")
        );
    }
    let (code, out, _) = run(&["plan", "--all", "-o", "refs", &p]);
    assert_eq!((code, out.as_str()), (0, "Widget.example.com/w\n"));
    // A namespace written: that namespace, whatever the scope.
    let p = write(&d, "written.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: a}\n");
    let (code, out, err) = run(&["plan", "--all", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (0, "widget.example.com/w -n a\n"), "{err}");
    // The CRD in the input says the scope.
    let crd = |scope: &str| {
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  scope: {scope}\n  names: {{kind: Widget, plural: widgets}}\n---\n{widget}")
    };
    let p = write(&d, "namespaced.yaml", &crd("Namespaced"));
    let (code, out, err) = run(&["plan", "--delete", "widget.example.com/w", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (0, "widget.example.com/w -n default\n"), "{err}");
    let p = write(&d, "cluster.yaml", &crd("Cluster"));
    let (code, out, err) = run(&["plan", "--delete", "widget.example.com/w", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (0, "widget.example.com/w\n"), "{err}");
}

#[test]
fn ids_kubectl_would_read_as_a_resource_or_a_flag_are_refused() {
    // A token that is a resource/name, or a flag: kubectl would delete a
    // real object, or read an option.
    let cases = [
        (
            "deployment.apps/web b\n",
            "has the id `deployment.apps/web`, which holds `/`: kubectl would read it as TYPE/NAME",
        ),
        ("a -k.\n", "has the id `-k.`, which starts with `-`: kubectl would read it as a flag"),
    ];
    for (input, says) in cases {
        let (code, out, err) = common::run_stdin(&["plan", "--all", "--dialect", "pairs", "-o", "names"], input);
        assert_eq!((code, out.as_str()), (2, ""), "{input}: {err}");
        assert!(err.starts_with("teardown: error: -o names: "), "{err}");
        assert!(err.contains("(<stdin>:1) ") && err.contains(says), "{err}");
        assert!(err.ends_with(REFS_HINT), "{err}");
        let (code, _, err) = common::run_stdin(&["plan", "--all", "--dialect", "pairs", "-o", "refs"], input);
        assert_eq!(code, 0, "{err}");
    }
    // Native ids likewise.
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "native.yaml", "resources:\n- id: pod/web\n");
    let (code, out, err) = run(&["plan", "--all", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains(&format!("-o names: pod/web ({p}:2) has the id `pod/web`, which holds `/`")), "{err}");
}

// ---------------------------------------------------------------------------
// graph and explain: yaml, names, refs; explain's table.

#[test]
fn graph_speaks_yaml_names_and_refs() {
    for args in [
        &["graph", "fixtures/shop"][..],
        &["graph", "--dependencies", "--focus", "pod/shop/web-5d4f-a", "fixtures/shop"],
    ] {
        let with = |format: &str| {
            let mut a = args.to_vec();
            a.extend(["-o", format]);
            let (code, out, err) = run(&a);
            assert_eq!(code, 0, "{err}");
            out
        };
        let json: Value = serde_json::from_str(&with("json")).unwrap();
        let yaml: Value = serde_yaml::from_str(&with("yaml")).unwrap();
        assert_eq!(yaml, json, "YAML is the same document");
    }
    // The objects the tree shows, each once, in the order it first shows them.
    let (_, out, _) = run(&["graph", "-o", "refs", "fixtures/shop"]);
    assert_eq!(
        lines(&out),
        [
            "CustomResourceDefinition.apiextensions.k8s.io/carts.shop.example.com",
            "Cart.shop.example.com/shop/cart-1",
            "Namespace/shop",
            "Deployment.apps/shop/web",
            "ReplicaSet.apps/shop/web-5d4f",
            "Pod/shop/web-5d4f-a",
            "Pod/shop/web-5d4f-b",
            "Secret/shop/db-password",
            "Service/shop/web",
            "EndpointSlice.discovery.k8s.io/shop/web-abc",
            "StatefulSet.apps/shop/db",
            "Pod/shop/db-0",
        ]
    );
    // After --focus and --depth.
    let (_, out, _) = run(&["graph", "--focus", "ns/shop", "--depth", "1", "-o", "names", "fixtures/shop"]);
    assert_eq!(
        out,
        "namespace/shop\ncart.shop.example.com/cart-1 -n shop\ndeployment.apps/web -n shop\nsecret/db-password -n shop\nservice/web -n shop\nstatefulset.apps/db -n shop\n"
    );
    let (_, out, _) =
        run(&["graph", "--dependencies", "--focus", "pod/shop/web-5d4f-a", "-o", "names", "fixtures/shop"]);
    assert_eq!(
        out,
        "pod/web-5d4f-a -n shop\nreplicaset.apps/web-5d4f -n shop\ndeployment.apps/web -n shop\nnamespace/shop\nsecret/db-password -n shop\n"
    );
}

#[test]
fn explain_speaks_table_yaml_names_and_refs() {
    let explain = |format: &[&str]| {
        let mut a = vec!["explain", "secret/db-password", "fixtures/shop"];
        a.extend_from_slice(format);
        let (code, out, err) = run(&a);
        assert_eq!(code, 0, "{err}");
        out
    };
    // The default is `table`; `text`, its old name, still works.
    let table = explain(&[]);
    assert!(table.starts_with("Secret/shop/db-password: deleted in step 4 of 5\n"), "{table}");
    assert_eq!(explain(&["-o", "table"]), table);
    assert_eq!(explain(&["-o", "text"]), table);
    let json: Value = serde_json::from_str(&explain(&["-o", "json"])).unwrap();
    let yaml: Value = serde_yaml::from_str(&explain(&["-o", "yaml"])).unwrap();
    assert_eq!(yaml, json);
    // The objects the explanation names, in its order, each once.
    assert_eq!(
        explain(&["-o", "refs"]),
        "Secret/shop/db-password\nDeployment.apps/shop/web\nReplicaSet.apps/shop/web-5d4f\nPod/shop/web-5d4f-a\n"
    );
    assert_eq!(
        explain(&["-o", "names"]),
        "secret/db-password -n shop\ndeployment.apps/web -n shop\nreplicaset.apps/web-5d4f -n shop\npod/web-5d4f-a -n shop\n"
    );
    // The chain that reaches a dependent, from its target down.
    let (_, out, _) = run(&["explain", "pod/web-5d4f-a", "--delete", "deploy/web", "-o", "refs", "fixtures/shop"]);
    assert_eq!(out, "Pod/shop/web-5d4f-a\nDeployment.apps/shop/web\nReplicaSet.apps/shop/web-5d4f\n");
    // A kept object, and the owner that does not take it.
    let (_, out, _) =
        run(&["explain", "pod/shared", "--delete", "rs/left", "-o", "refs", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(out, "Pod/prod/shared\nReplicaSet.apps/prod/left\n");
    // `text` is not listed in --help.
    let (_, help, _) = run(&["explain", "--help"]);
    assert!(help.contains("- table:") && !help.contains("- text"), "{help}");
}

#[test]
fn help_lists_each_format_on_one_line() {
    for command in ["plan", "graph", "explain", "check", "simulate", "reconcile"] {
        let (_, help, _) = run(&[command, "--help"]);
        let values: Vec<&str> = help
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("-o, --output"))
            .skip(2)
            .take_while(|l| !l.trim().is_empty())
            .collect();
        assert!(values.len() >= 2, "{command}: {help}");
        for v in values {
            let v = v.trim_start();
            assert!(v.starts_with("- ") && v.contains(": "), "{command}: a format without its line: {v:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// Colour.

/// The text without its ANSI SGR sequences.
fn strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('m').expect("an SGR sequence ends in m");
        assert!(after[..end].bytes().all(|b| b.is_ascii_digit() || b == b';'), "not SGR: {:?}", &after[..end]);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

const TABLES: &[&[&str]] = &[
    &["plan", "--all", "fixtures/shop"],
    &["plan", "--delete", "rs/left", "fixtures/plan/two-owners.yaml"],
    &["plan", "--delete", "deploy/web", "--cascade", "orphan", "fixtures/shop"],
    &["plan", "--all", "--allow-cycles", "fixtures/check/td007-ownership-cycle.yaml"],
    &["plan", "--all", "fixtures/plan/murano-app.yaml"],
    &["graph", "fixtures/shop"],
    &["graph", "--dependencies", "--focus", "pod/shop/web-5d4f-a", "fixtures/shop"],
    &["graph", "fixtures/check/td007-ownership-cycle.yaml"],
    &["explain", "secret/db-password", "fixtures/shop"],
    &["explain", "pod/shared", "--delete", "rs/left", "fixtures/plan/two-owners.yaml"],
];

fn with_color(args: &[&str], color: &str) -> (String, String) {
    let mut a = args.to_vec();
    a.extend(["--color", color]);
    let (code, out, err) = run(&a);
    assert_eq!(code, 0, "{args:?}: {err}");
    (out, err)
}

#[test]
fn color_always_paints_the_tables_and_keeps_their_columns() {
    for args in TABLES {
        let (painted, painted_err) = with_color(args, "always");
        let (plain, plain_err) = with_color(args, "never");
        assert!(painted.contains("\x1b["), "{args:?}: no colour:\n{painted}");
        assert!(!plain.contains('\x1b') && !plain_err.contains('\x1b'), "{args:?}");
        // The same text, so the same columns.
        assert_eq!(strip(&painted), plain, "{args:?}");
        assert_eq!(strip(&painted_err), plain_err, "{args:?}");
    }
    // Kinds and actions are painted; columns line up after stripping.
    let (painted, _) = with_color(&["plan", "--delete", "rs/left", "fixtures/plan/two-owners.yaml"], "always");
    assert!(painted.contains("\x1b[31mdelete\x1b[0m") && painted.contains("\x1b[32mkeep\x1b[0m"), "{painted}");
    assert!(painted.contains("\x1b[36mReplicaSet\x1b[0m.apps/prod/left"), "{painted}");
    let stripped = strip(&painted);
    let rows = lines(&stripped);
    let at = rows[0].find("OBJECT").unwrap();
    for row in &rows[1..] {
        assert!(row.char_indices().nth(at).is_some_and(|(_, c)| c != ' '), "{row:?}");
        assert!(row.chars().nth(at - 1) == Some(' ') && row.chars().nth(at - 2) == Some(' '), "{row:?}");
    }
    // Warnings on stderr too.
    let (_, err) =
        with_color(&["plan", "--all", "--allow-cycles", "fixtures/check/td007-ownership-cycle.yaml"], "always");
    assert!(err.contains("\x1b[1;33mwarning[TD007]\x1b[0m: ownership cycle"), "{err}");
    let (tree, _) = with_color(&["graph", "fixtures/check/td007-ownership-cycle.yaml"], "always");
    assert!(tree.contains("\x1b[1;33m[cycle]\x1b[0m"), "{tree}");
}

/// Run a prepared command: (exit code, stdout, stderr).
fn output(cmd: &mut assert_cmd::Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

#[test]
fn no_color_and_never_give_none() {
    for args in TABLES {
        // NO_COLOR, and a pipe (auto): none.
        let (code, out, err) = output(common::teardown().args(*args).env("NO_COLOR", "1"));
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains('\x1b') && !err.contains('\x1b'), "{args:?}");
        // --color always beats NO_COLOR.
        let (_, out, _) = output(common::teardown().args(*args).args(["--color", "always"]).env("NO_COLOR", "1"));
        assert!(out.contains("\x1b["), "{args:?}");
    }
}

/// Run a command line in-process with a terminal (or not) and NO_COLOR.
fn in_process(args: &[&str], terminal: bool, no_color: bool) -> String {
    use clap::Parser;
    let root = env!("CARGO_MANIFEST_DIR");
    let args: Vec<String> = std::iter::once("teardown".to_string())
        .chain(args.iter().map(|a| if a.starts_with("fixtures/") { format!("{root}/{a}") } else { a.to_string() }))
        .collect();
    let cli = teardown::cli::Cli::try_parse_from(&args).unwrap();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let env = teardown::commands::Env {
        stdin: &mut std::io::empty(),
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdout_is_terminal: terminal,
        progress: false,
        quiet: false,
        stdin_is_terminal: false,
        no_color,
    };
    teardown::commands::run(cli, env).unwrap();
    String::from_utf8(stdout).unwrap()
}

#[test]
fn a_terminal_gets_colour_unless_no_color() {
    for args in TABLES {
        let painted = in_process(args, true, false);
        assert!(painted.contains("\x1b["), "{args:?}");
        let plain = in_process(args, true, true);
        assert!(!plain.contains('\x1b'), "{args:?}");
        assert_eq!(strip(&painted), plain);
        assert!(!in_process(args, false, false).contains('\x1b'), "{args:?}");
        let mut always = args.to_vec();
        always.extend(["--color", "always"]);
        assert!(in_process(&always, true, true).contains("\x1b["), "{args:?}");
    }
}

/// Names and refs never carry colour, whatever `--color` says.
#[test]
fn lists_are_never_painted() {
    for format in ["names", "refs", "json", "yaml"] {
        for command in [
            &["plan", "--all", "fixtures/shop"][..],
            &["graph", "fixtures/shop"],
            &["explain", "pod/db-0", "fixtures/shop"],
        ] {
            let mut a = command.to_vec();
            a.extend(["-o", format]);
            let (out, _) = with_color(&a, "always");
            assert!(!out.contains('\x1b'), "{a:?}");
        }
    }
}

#[test]
fn simulate_speaks_yaml_names_and_refs() {
    let cases: [&[&str]; 3] = [
        &["simulate", "--controller", "kubernetes", "--delete", "deploy/shop/web", "fixtures/shop"],
        &["simulate", "--controller", "kubernetes", "--cascade", "foreground", "--delete", "ns/shop", "fixtures/shop"],
        &["simulate", "--controller", "krake", "--delete", "role/team/A", "fixtures/krake/tree.yaml"],
    ];
    for args in cases {
        let with = |format: &str| {
            let mut a = args.to_vec();
            a.extend(["-o", format]);
            let (code, out, err) = run(&a);
            assert_eq!(code, 0, "{a:?}: {err}");
            out
        };
        let json: Value = serde_json::from_str(&with("json")).unwrap();
        let text = with("yaml");
        let yaml: Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(yaml, json, "{args:?}: YAML is the same document");
        assert!(text.starts_with("schemaVersion: 1\n"), "keys in JSON's order: {text}");
        // The objects removed, in the order they went: the summary's list.
        let removed: Vec<&str> =
            json["summary"]["removed"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        let refs = with("refs");
        assert_eq!(lines(&refs), removed, "{args:?}");
        assert!(!removed.is_empty());
        let names = with("names");
        assert_eq!(lines(&names).len(), removed.len());
        for (n, r) in lines(&names).iter().zip(&removed) {
            check_line(n, r, &format!("{args:?}"));
        }
    }
    let (_, out, _) =
        run(&["simulate", "--controller", "kubernetes", "--delete", "deploy/shop/web", "-o", "names", "fixtures/shop"]);
    assert_eq!(out, "deployment.apps/web -n shop\nreplicaset.apps/web-5d4f -n shop\npod/web-5d4f-a -n shop\npod/web-5d4f-b -n shop\n");
}
