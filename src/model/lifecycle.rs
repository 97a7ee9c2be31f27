//! The states of crd-reconciler's decision table (`teardown reconcile`):
//! what a custom resource is asked to be and says it is, and what state an
//! object is in as a sub-resource, told by its kind's status. Dialects tell
//! them (the desired state as they read, the rest when asked, from the
//! document read again); nothing here knows a wire format.

use serde::Serialize;

/// The four states of crd-reconciler's state machine. Completed and Failed
/// are terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum State {
    Pending,
    Running,
    Completed,
    Failed,
}

impl State {
    pub const ALL: [State; 4] = [State::Pending, State::Running, State::Completed, State::Failed];

    /// The state a value names, as crd-reconciler writes them (`Running`).
    pub fn parse(text: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            State::Pending => "Pending",
            State::Running => "Running",
            State::Completed => "Completed",
            State::Failed => "Failed",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, State::Completed | State::Failed)
    }
}

/// A state field as written: absent, one of the four states, or something
/// else (which `reconcile` refuses for a custom resource).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Said {
    #[default]
    Absent,
    State(State),
    Other,
}

impl Said {
    pub fn from_text(text: Option<&str>) -> Said {
        match text {
            None => Said::Absent,
            Some(t) => State::parse(t).map_or(Said::Other, Said::State),
        }
    }
}

/// An object's state as a sub-resource, and what in its status told it.
/// Each variant implies its state ([`Observed::state`]); the variant says
/// why, for the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Observed {
    /// Not read (objects of dialects without states).
    #[default]
    NotRead,
    /// Its own `status.state` (a custom resource under another).
    StatusState(State),
    /// A kind with a lifecycle whose status is not written yet: it was
    /// just created (Pending).
    NoStatus,
    /// A Pod's phase: Pending, Running, Succeeded (Completed), Failed.
    PodPhase(State),
    /// A Pod in phase Unknown: its node stopped reporting. No state.
    PodUnknown,
    /// A Job's `Complete` (or `SuccessCriteriaMet`) condition is true.
    JobComplete,
    /// A Job's `Failed` (or `FailureTarget`) condition is true.
    JobFailed,
    /// A Job with active Pods.
    JobActive,
    /// A Job with no active Pod yet, or suspended.
    JobWaiting,
    /// A Deployment's `Available` condition is true.
    Available,
    /// A Deployment that is not available yet.
    NotAvailable,
    /// A Deployment whose `Progressing` condition is false with reason
    /// `ProgressDeadlineExceeded`.
    DeadlineExceeded,
    /// A `ReplicaFailure` condition is true (Deployment, ReplicaSet).
    ReplicaFailure,
    /// Every wanted replica is ready (ReplicaSet, StatefulSet, DaemonSet).
    ReplicasReady,
    /// Some wanted replica is not ready yet.
    ReplicasNotReady,
    /// A PersistentVolumeClaim's phase: Pending, Bound (Running), Lost (Failed).
    ClaimPhase(State),
    /// A kind without a lifecycle of its own (ConfigMap, Service…): it is
    /// running while it exists.
    Exists,
}

impl Observed {
    /// The state it implies; `None`: no state can be told.
    pub fn state(self) -> Option<State> {
        Some(match self {
            Observed::NotRead | Observed::PodUnknown => return None,
            Observed::StatusState(s) | Observed::PodPhase(s) | Observed::ClaimPhase(s) => s,
            Observed::NoStatus | Observed::JobWaiting | Observed::NotAvailable | Observed::ReplicasNotReady => {
                State::Pending
            }
            Observed::JobActive | Observed::Available | Observed::ReplicasReady | Observed::Exists => State::Running,
            Observed::JobComplete => State::Completed,
            Observed::JobFailed | Observed::DeadlineExceeded | Observed::ReplicaFailure => State::Failed,
        })
    }
}

/// What an object says of its states.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lifecycle {
    /// `spec.state`: the state a custom resource is asked to be in.
    pub desired: Said,
    /// `status.state`: the state its controller says it is in.
    pub current: Said,
    /// Its state as a sub-resource.
    pub observed: Observed,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_desired_state_fits_in_the_padding_of_an_object() {
        assert_eq!(std::mem::size_of::<Said>(), 1);
        // (232: 224, and 8 for the default rules' facts, `Object::facts`.)
        #[cfg(target_pointer_width = "64")]
        assert_eq!(std::mem::size_of::<crate::model::Object>(), 232);
    }

    #[test]
    fn states_are_written_as_crd_reconciler_writes_them() {
        assert_eq!(Said::from_text(Some("Running")), Said::State(State::Running));
        assert_eq!(Said::from_text(Some("running")), Said::Other);
        assert_eq!(Said::from_text(None), Said::Absent);
    }
}
