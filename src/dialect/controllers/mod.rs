//! Application controllers' wire formats (issue 35): which objects are
//! application objects, what their controller reads of them (finalizers,
//! switches, where the managed set is written), and the marks it reads on
//! the objects it manages. Only this folder knows those fields,
//! annotations and labels; it hands `model::managed` values to
//! `analysis::managed`, which makes the managed-by relations.
//!
//! Each controller is one file; see `docs/controllers/CASCADES.md` for the
//! upstream code each reading follows.

mod argocd;
mod crossplane;
mod flux;
mod helm;
mod kapp;
pub mod marks;
mod storage;
mod wire;

use crate::input::Sources;
use crate::model::managed::{App, Controller};
use crate::model::{ObjId, Object};
use wire::{has_finalizer, World};

/// A Crossplane claim's finalizer (its kind is an XRD's claim kind).
const CROSSPLANE_CLAIM_FINALIZER: &str = "finalizer.apiextensions.crossplane.io";

/// The controller of an application object, by its kind (a Crossplane
/// claim by its finalizer: claim kinds are defined by each XRD).
pub fn controller_of(o: &Object) -> Option<Controller> {
    if !o.is_kubernetes() {
        return None;
    }
    Some(match (&*o.group, &*o.kind) {
        ("argoproj.io", "Application") => Controller::ArgoCd,
        ("kustomize.toolkit.fluxcd.io", "Kustomization") => Controller::FluxKustomize,
        ("helm.toolkit.fluxcd.io", "HelmRelease") => Controller::FluxHelm,
        ("helm.cattle.io", "HelmChart") => Controller::K3sHelm,
        ("k3s.cattle.io", "Addon") => Controller::K3sAddon,
        ("kappctrl.k14s.io", "App") => Controller::Kapp,
        _ if o.finalizers.iter().any(|f| &**f == CROSSPLANE_CLAIM_FINALIZER) => Controller::Crossplane,
        _ => return None,
    })
}

/// The application objects of the snapshot, each as its controller reads
/// it; and the Crossplane managed resources whose deletion leaves their
/// external resource.
pub fn read(sources: &Sources, objects: &[Object]) -> (Vec<(ObjId, App)>, Vec<ObjId>) {
    let world = World { sources, objects };
    let argo = argocd::Settings::of(&world);
    let mut out = Vec::new();
    let mut external = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        let managed_resource = o.is_kubernetes() && has_finalizer(o, &[crossplane::MANAGED_FINALIZER]);
        if managed_resource && world.document(o).is_some_and(|doc| crossplane::keeps_external(&doc)) {
            external.push(ObjId(i as u32));
        }
        let Some(controller) = controller_of(o) else { continue };
        let Some(doc) = world.document(o) else { continue };
        let app = match controller {
            Controller::ArgoCd => argocd::app(&doc, o, &argo),
            Controller::FluxKustomize => flux::kustomization(&doc, o),
            Controller::FluxHelm => helm::helm_release(&doc, o, &world),
            Controller::K3sHelm => helm::helm_chart(&doc, o, &world),
            Controller::K3sAddon => helm::addon(o),
            Controller::Kapp => kapp::app(&doc, o, &world),
            Controller::Crossplane => crossplane::claim(&doc, o, &world),
        };
        let mut app = app;
        // The finalizer its controller holds it by, when it cascades.
        if app.releases.is_none() {
            app.finalizer = o.finalizers.iter().find(|f| finalizer_of(controller, f)).cloned();
        }
        out.push((ObjId(i as u32), app));
    }
    (out, external)
}

/// Is `f` the finalizer through which `controller` cascades?
fn finalizer_of(controller: Controller, f: &str) -> bool {
    match controller {
        Controller::ArgoCd => argocd::RESOURCES_FINALIZERS.contains(&f),
        Controller::FluxKustomize | Controller::FluxHelm => f == flux::FINALIZER,
        Controller::K3sHelm => helm::K3S_FINALIZERS.contains(&f),
        Controller::K3sAddon => false,
        Controller::Kapp => f == kapp::FINALIZER,
        Controller::Crossplane => f == CROSSPLANE_CLAIM_FINALIZER,
    }
}
