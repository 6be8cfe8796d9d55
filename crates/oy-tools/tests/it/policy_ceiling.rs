//! The workspace ceiling: it lowers privileges, reports what it lowered
//! and what it refused, and never raises anything.

use oy_tools::{
    Ceiling, CeilingReport, Lowering, Mode, Network, Overreach, Policy, Privileges, SandboxSetting,
};
use proptest::prelude::*;

fn privileges(mode: Mode, network: Option<Network>) -> Privileges {
    let mut policy = Policy::new(mode, false);
    if let Some(network) = network {
        policy.network = network;
    }
    Privileges {
        policy,
        network_chosen: network.is_some(),
        sandbox: SandboxSetting::Off,
        max_turns: None,
    }
}

fn rank(mode: Mode) -> usize {
    [
        Mode::Plan,
        Mode::Default,
        Mode::AcceptEdits,
        Mode::AutoApprove,
    ]
    .iter()
    .position(|m| *m == mode)
    .unwrap()
}

fn looseness(network: Network) -> usize {
    [Network::Deny, Network::Ask, Network::Allow]
        .iter()
        .position(|n| *n == network)
        .unwrap()
}

#[test]
fn lowers_the_mode_and_takes_its_network_default() {
    let ceiling = Ceiling {
        mode: Some(Mode::Plan),
        ..Ceiling::default()
    };
    let mut run = privileges(Mode::AutoApprove, None);
    let report = ceiling.apply(&mut run);
    assert_eq!(run.policy.mode, Mode::Plan);
    assert_eq!(run.policy.network, Network::Deny);
    assert_eq!(
        report,
        CeilingReport {
            lowered: vec![Lowering::Mode {
                from: Mode::AutoApprove,
                to: Mode::Plan
            }],
            ignored: vec![],
        }
    );
    assert_eq!(
        report.lowered[0].to_string(),
        "mode lowered from auto-approve to plan"
    );
}

#[test]
fn a_lowered_mode_keeps_a_chosen_network() {
    let ceiling = Ceiling {
        mode: Some(Mode::Default),
        ..Ceiling::default()
    };
    let mut run = privileges(Mode::AutoApprove, Some(Network::Deny));
    ceiling.apply(&mut run);
    assert_eq!(
        (run.policy.mode, run.policy.network),
        (Mode::Default, Network::Deny)
    );
}

#[test]
fn refuses_to_raise_the_mode_or_loosen_the_network() {
    let ceiling = Ceiling {
        mode: Some(Mode::AutoApprove),
        network: Some(Network::Allow),
        sandbox: Some(SandboxSetting::Off),
        max_turns: None,
    };
    let mut run = privileges(Mode::Plan, None);
    let before = run;
    let report = ceiling.apply(&mut run);
    assert_eq!(run, before);
    assert!(report.lowered.is_empty(), "{report:?}");
    let texts: Vec<String> = report.ignored.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [
            "mode auto-approve would raise the mode above plan",
            "network allow would loosen network deny",
            "a workspace cannot turn the sandbox off",
        ]
    );
    assert_eq!(
        report.ignored[0],
        Overreach::RaiseMode {
            wanted: Mode::AutoApprove,
            current: Mode::Plan
        }
    );
}

#[test]
fn the_same_value_is_neither_lowered_nor_ignored() {
    let ceiling = Ceiling {
        mode: Some(Mode::Default),
        network: Some(Network::Ask),
        ..Ceiling::default()
    };
    let mut run = privileges(Mode::Default, None);
    assert_eq!(ceiling.apply(&mut run), CeilingReport::default());
}

#[test]
fn turns_the_sandbox_on_and_caps_turns_even_when_unset() {
    let ceiling = Ceiling {
        sandbox: Some(SandboxSetting::On),
        max_turns: Some(5),
        ..Ceiling::default()
    };
    let mut run = privileges(Mode::Default, None);
    let report = ceiling.apply(&mut run);
    assert_eq!(run.sandbox, SandboxSetting::On);
    assert_eq!(run.max_turns, Some(5));
    let texts: Vec<String> = report.lowered.iter().map(ToString::to_string).collect();
    assert_eq!(texts, ["sandbox turned on", "max_turns capped at 5"]);
}

#[test]
fn a_turn_cap_also_bounds_a_later_choice() {
    let ceiling = Ceiling {
        max_turns: Some(5),
        ..Ceiling::default()
    };
    assert_eq!(ceiling.cap_turns(Some(50)), Some(5));
    assert_eq!(ceiling.cap_turns(Some(3)), Some(3));
    assert_eq!(ceiling.cap_turns(None), Some(5));
    assert_eq!(Ceiling::default().cap_turns(None), None);
}

#[test]
fn a_mode_switch_stays_under_the_ceiling() {
    let ceiling = Ceiling {
        mode: Some(Mode::AcceptEdits),
        network: Some(Network::Ask),
        ..Ceiling::default()
    };
    let policy = ceiling.policy_for(Mode::AutoApprove, None, true);
    assert_eq!(
        (policy.mode, policy.network, policy.interactive),
        (Mode::AcceptEdits, Network::Ask, true)
    );
    let policy = ceiling.policy_for(Mode::Plan, Some(Network::Allow), true);
    assert_eq!((policy.mode, policy.network), (Mode::Plan, Network::Ask));
}

fn any_mode() -> impl Strategy<Value = Mode> {
    proptest::sample::select(Mode::ALL.to_vec())
}

fn any_network() -> impl Strategy<Value = Network> {
    proptest::sample::select(vec![Network::Deny, Network::Ask, Network::Allow])
}

fn any_sandbox() -> impl Strategy<Value = SandboxSetting> {
    proptest::sample::select(vec![SandboxSetting::On, SandboxSetting::Off])
}

prop_compose! {
    fn any_privileges()(
        mode in any_mode(),
        network in any_network(),
        network_chosen in any::<bool>(),
        sandbox in any_sandbox(),
        max_turns in proptest::option::of(1u32..100),
    ) -> Privileges {
        let mut policy = Policy::new(mode, false);
        if network_chosen {
            policy.network = network;
        }
        Privileges { policy, network_chosen, sandbox, max_turns }
    }
}

prop_compose! {
    fn any_ceiling()(
        mode in proptest::option::of(any_mode()),
        network in proptest::option::of(any_network()),
        sandbox in proptest::option::of(any_sandbox()),
        max_turns in proptest::option::of(1u32..100),
    ) -> Ceiling {
        Ceiling { mode, network, sandbox, max_turns }
    }
}

proptest! {
    #[test]
    fn a_ceiling_never_raises_a_privilege(ceiling in any_ceiling(), before in any_privileges()) {
        let mut after = before;
        ceiling.apply(&mut after);
        prop_assert!(rank(after.policy.mode) <= rank(before.policy.mode));
        prop_assert!(looseness(after.policy.network) <= looseness(before.policy.network));
        if before.sandbox == SandboxSetting::On {
            prop_assert_eq!(after.sandbox, SandboxSetting::On);
        }
        if let Some(turns) = before.max_turns {
            prop_assert!(after.max_turns.is_some_and(|after| after <= turns));
        }
        prop_assert_eq!(after.policy.interactive, before.policy.interactive);
    }

    #[test]
    fn a_ceiling_holds_what_it_caps(ceiling in any_ceiling(), before in any_privileges()) {
        let mut after = before;
        ceiling.apply(&mut after);
        if let Some(mode) = ceiling.mode {
            prop_assert!(rank(after.policy.mode) <= rank(mode));
        }
        if let Some(network) = ceiling.network {
            prop_assert!(looseness(after.policy.network) <= looseness(network));
        }
        if ceiling.sandbox == Some(SandboxSetting::On) {
            prop_assert_eq!(after.sandbox, SandboxSetting::On);
        }
        if let Some(cap) = ceiling.max_turns {
            prop_assert!(after.max_turns.is_some_and(|turns| turns <= cap));
        }
    }

    #[test]
    fn a_mode_switch_never_passes_the_ceiling(
        ceiling in any_ceiling(),
        mode in any_mode(),
        chosen in proptest::option::of(any_network()),
    ) {
        let policy = ceiling.policy_for(mode, chosen, false);
        prop_assert!(rank(policy.mode) <= rank(mode));
        if let Some(cap) = ceiling.mode {
            prop_assert!(rank(policy.mode) <= rank(cap));
        }
        if let Some(cap) = ceiling.network {
            prop_assert!(looseness(policy.network) <= looseness(cap));
        }
    }

    #[test]
    fn the_report_names_exactly_what_changed(ceiling in any_ceiling(), before in any_privileges()) {
        let mut after = before;
        let report = ceiling.apply(&mut after);
        let mode_lowered = report.lowered.iter().any(|l| matches!(l, Lowering::Mode { .. }));
        prop_assert_eq!(mode_lowered, after.policy.mode != before.policy.mode);
        let sandbox_on = report.lowered.contains(&Lowering::SandboxOn);
        prop_assert_eq!(sandbox_on, after.sandbox != before.sandbox);
        for overreach in &report.ignored {
            match overreach {
                Overreach::RaiseMode { current, .. } => prop_assert_eq!(*current, after.policy.mode),
                Overreach::LoosenNetwork { current, .. } => {
                    prop_assert_eq!(*current, after.policy.network);
                }
                _ => {}
            }
        }
    }
}
