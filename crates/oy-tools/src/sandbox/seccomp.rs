//! The seccomp filter of the confine stage: without network, `socket()`
//! for any family but AF_UNIX and io_uring (which can make sockets without
//! `socket()`) fail with EPERM; always, `ioctl(TIOCSTI)` and
//! `ioctl(TIOCLINUX)` — typing into a terminal — fail with EPERM. Another
//! architecture's system calls (32-bit `int 0x80`) kill the process, and
//! on x86-64 the x32 ABI is refused as a whole.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Installs the filter on the calling thread (inherited across `exec`).
pub(crate) fn apply(network: bool) -> Result<(), String> {
    let program = program(network)?;
    seccompiler::apply_filter(&program).map_err(|error| format!("seccomp: {error}"))
}

#[allow(
    clippy::unnecessary_cast,
    reason = "the ioctl request type is u64 on some libc targets and i32 on others"
)]
fn program(network: bool) -> Result<BpfProgram, String> {
    let fail = |error: seccompiler::BackendError| format!("seccomp: {error}");
    let arg_is = |index, value: u64, op| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
            .and_then(|condition| SeccompRule::new(vec![condition]))
            .map_err(fail)
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(
        libc::SYS_ioctl,
        vec![
            arg_is(1, libc::TIOCSTI as u64, SeccompCmpOp::Eq)?,
            arg_is(1, libc::TIOCLINUX as u64, SeccompCmpOp::Eq)?,
        ],
    );
    if !network {
        rules.insert(
            libc::SYS_socket,
            vec![arg_is(0, libc::AF_UNIX as u64, SeccompCmpOp::Ne)?],
        );
        for call in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            rules.insert(call, Vec::new());
        }
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(fail)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(fail)?;
    let mut program: BpfProgram = filter.try_into().map_err(fail)?;
    refuse_x32(&mut program);
    Ok(program)
}

/// x32 system calls carry bit 30 in their number and the x86-64 audit
/// arch, so per-number rules would miss them (its `ioctl` is number 514):
/// right after the arch check, any number with that bit fails with EPERM.
#[cfg(target_arch = "x86_64")]
fn refuse_x32(program: &mut BpfProgram) {
    use seccompiler::sock_filter;
    const X32_BIT: u32 = 0x4000_0000;
    // BPF_LD | BPF_W | BPF_ABS at offsetof(seccomp_data, nr) = 0.
    let load_nr = sock_filter {
        code: 0x20,
        jt: 0,
        jf: 0,
        k: 0,
    };
    // BPF_JMP | BPF_JGE | BPF_K: on x32, fall through to the return.
    let is_x32 = sock_filter {
        code: 0x35,
        jt: 0,
        jf: 1,
        k: X32_BIT,
    };
    // BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM.
    let refuse = sock_filter {
        code: 0x06,
        jt: 0,
        jf: 0,
        k: 0x0005_0000 | libc::EPERM as u32,
    };
    // seccompiler's program starts with a three-instruction arch check
    // whose success jumps to index 3; every later jump is relative.
    let at = 3.min(program.len());
    program.splice(at..at, [load_nr, is_x32, refuse]);
}

#[cfg(not(target_arch = "x86_64"))]
fn refuse_x32(_program: &mut BpfProgram) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_compile_with_and_without_network() {
        let closed = program(false).unwrap();
        let open = program(true).unwrap();
        assert!(closed.len() > open.len());
    }
}
