//! The machine-fact parsers on fixture text from `/proc`.

use std::path::Path;

use super::*;

const CPUINFO_X86: &str = "\
processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13   64-Core Processor
physical id\t: 0
core id\t\t: 0
cpu cores\t: 2

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13   64-Core Processor
physical id\t: 0
core id\t\t: 0
cpu cores\t: 2

processor\t: 2
model name\t: AMD EPYC 7B13   64-Core Processor
physical id\t: 0
core id\t\t: 1
";

const CPUINFO_ARM: &str = "\
processor\t: 0
BogoMIPS\t: 108.00
CPU part\t: 0xd08

processor\t: 1
BogoMIPS\t: 108.00

Hardware\t: BCM2835
Model\t\t: Raspberry Pi 4 Model B Rev 1.4
";

#[test]
fn cpu_model_reads_model_name_and_squeezes_spaces() {
    assert_eq!(
        cpu_model(CPUINFO_X86).as_deref(),
        Some("AMD EPYC 7B13 64-Core Processor")
    );
}

#[test]
fn cpu_model_falls_back_to_the_board_model_off_x86() {
    assert_eq!(
        cpu_model(CPUINFO_ARM).as_deref(),
        Some("Raspberry Pi 4 Model B Rev 1.4")
    );
    assert_eq!(cpu_model("flags\t: fpu\n"), None);
}

#[test]
fn counts_logical_cpus_and_distinct_cores() {
    assert_eq!(logical_cpus(CPUINFO_X86), 3);
    assert_eq!(physical_cores(CPUINFO_X86), Some(2));
    assert_eq!(logical_cpus(CPUINFO_ARM), 2);
    assert_eq!(physical_cores(CPUINFO_ARM), None);
}

const MEMINFO: &str = "\
MemTotal:       24683776 kB
MemFree:          764016 kB
MemAvailable:   23677032 kB
HugePages_Total:       0
";

#[test]
fn meminfo_values_in_kib() {
    assert_eq!(meminfo_kib(MEMINFO, "MemTotal"), Some(24_683_776));
    assert_eq!(meminfo_kib(MEMINFO, "MemAvailable"), Some(23_677_032));
    assert_eq!(meminfo_kib(MEMINFO, "HugePages_Total"), Some(0));
    // A prefix of a key is not the key.
    assert_eq!(meminfo_kib(MEMINFO, "Mem"), None);
    assert_eq!(meminfo_kib(MEMINFO, "SwapTotal"), None);
}

#[test]
fn load_average_takes_three_numbers() {
    assert_eq!(
        load_average("3.42 2.01 2.23 6/114 14788\n").as_deref(),
        Some("3.42 2.01 2.23")
    );
    assert_eq!(load_average("3.42 2.01\n"), None);
    assert_eq!(load_average("a b c d e"), None);
}

const MOUNTS: &str = "\
proc /proc proc rw,relatime 0 0
/dev/vda / ext4 rw,relatime 0 0
tmpfs /dev/shm tmpfs rw,relatime 0 0
/dev/vdb /srv/scratch\\040space xfs rw 0 0
tmpfs /tmp tmpfs rw 0 0
overlay /tmp overlay rw 0 0
";

#[test]
fn mount_of_picks_the_deepest_mount_point() {
    let shm = mount_of(MOUNTS, Path::new("/dev/shm/oy-bench-1")).map(|m| m.fstype);
    assert_eq!(shm.as_deref(), Some("tmpfs"));
    let root = mount_of(MOUNTS, Path::new("/opt/oy/work")).map(|m| (m.fstype, m.point));
    assert_eq!(root, Some(("ext4".to_owned(), "/".to_owned())));
    // `/devx` is not under `/dev`.
    let devx = mount_of(MOUNTS, Path::new("/devx/a")).map(|m| m.point);
    assert_eq!(devx.as_deref(), Some("/"));
}

#[test]
fn mount_of_prefers_the_later_of_two_mounts_on_one_point() {
    let tmp = mount_of(MOUNTS, Path::new("/tmp/oy-bench")).map(|m| m.fstype);
    assert_eq!(tmp.as_deref(), Some("overlay"));
}

#[test]
fn mount_of_unescapes_octal_spaces() {
    let mount = mount_of(MOUNTS, Path::new("/srv/scratch space/x"));
    assert_eq!(
        mount,
        Some(Mount {
            source: "/dev/vdb".to_owned(),
            point: "/srv/scratch space".to_owned(),
            fstype: "xfs".to_owned(),
        })
    );
    assert_eq!(mount_of("", Path::new("/tmp")), None);
}

#[test]
fn civil_date_of_known_days() {
    assert_eq!(civil_date(0), "1970-01-01");
    assert_eq!(civil_date(951_782_400), "2000-02-29");
    assert_eq!(civil_date(951_868_799), "2000-02-29");
    assert_eq!(civil_date(1_700_000_000), "2023-11-14");
    assert_eq!(civil_date(4_107_542_400), "2100-03-01");
}

#[test]
fn facts_name_the_load_at_both_ends_once_finished() {
    let mut machine = Machine {
        load_start: "1.00 0.50 0.25".to_owned(),
        ..Machine::default()
    };
    let load = |machine: &Machine| {
        machine
            .facts()
            .into_iter()
            .find(|(name, _)| *name == "load average")
            .map(|(_, value)| value)
    };
    assert_eq!(
        load(&machine).as_deref(),
        Some("1.00 0.50 0.25 (1, 5, 15 min) at the start")
    );
    machine.load_end = "2.00 1.00 0.50".to_owned();
    assert_eq!(
        load(&machine).as_deref(),
        Some("1.00 0.50 0.25 (1, 5, 15 min) at the start, 2.00 1.00 0.50 at the end")
    );
}
