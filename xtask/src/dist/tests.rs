//! Tests of the dist archive on a fake binary: the ustar/gzip bytes read
//! back header by header, by the system `tar`, and the `.sha256` beside it.
#![expect(
    clippy::disallowed_methods,
    reason = "the tests read what they wrote in a temp dir"
)]

use std::io::Read;
use std::process::Command;

use super::*;

fn fake_entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "oy".to_owned(),
            mode: 0o755,
            contents: b"#!/bin/sh\necho oy 9.9.9\n".to_vec(),
        },
        Entry {
            name: "README.md".to_owned(),
            mode: 0o644,
            contents: b"# oy\n".to_vec(),
        },
        // Exactly one block, and an empty file: the padding edge cases.
        Entry {
            name: "LICENSE-MIT".to_owned(),
            mode: 0o644,
            contents: vec![b'x'; BLOCK],
        },
        Entry {
            name: "SECURITY.md".to_owned(),
            mode: 0o644,
            contents: Vec::new(),
        },
    ]
}

/// (path, mode, type flag, contents) of every member, checking each
/// header's checksum and the two zero blocks at the end.
fn unpack(gz: &[u8]) -> Vec<(String, u32, u8, Vec<u8>)> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut tar)
        .unwrap();
    assert_eq!(tar.len() % BLOCK, 0);
    let field = |block: &[u8], at: usize, len: usize| {
        let raw = &block[at..at + len];
        let end = raw.iter().position(|&b| b == 0).unwrap_or(len);
        String::from_utf8(raw[..end].to_vec()).unwrap()
    };
    let number = |text: String| u64::from_str_radix(text.trim(), 8).unwrap();
    let mut members = Vec::new();
    let mut at = 0;
    loop {
        let block = &tar[at..at + BLOCK];
        if block.iter().all(|&b| b == 0) {
            assert!(tar[at..].iter().all(|&b| b == 0));
            assert_eq!(tar.len() - at, 2 * BLOCK, "two zero blocks end the archive");
            break;
        }
        let stored = number(field(block, 148, 8));
        let computed: u64 = block
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if (148..156).contains(&i) {
                    32
                } else {
                    u64::from(b)
                }
            })
            .sum();
        assert_eq!(stored, computed, "header checksum");
        assert_eq!(&block[257..263], b"ustar\0");
        let size = usize::try_from(number(field(block, 124, 12))).unwrap();
        let mode = u32::try_from(number(field(block, 100, 8))).unwrap();
        let data = tar[at + BLOCK..at + BLOCK + size].to_vec();
        members.push((field(block, 0, 100), mode, block[156], data));
        at += BLOCK + size.next_multiple_of(BLOCK);
    }
    members
}

#[test]
fn archive_holds_the_directory_then_each_file_with_its_mode() {
    let gz = pack(
        "oy-9.9.9-x86_64-unknown-linux-gnu",
        &fake_entries(),
        1_700_000_000,
    )
    .unwrap();
    let members = unpack(&gz);
    let names: Vec<&str> = members.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "oy-9.9.9-x86_64-unknown-linux-gnu/",
            "oy-9.9.9-x86_64-unknown-linux-gnu/oy",
            "oy-9.9.9-x86_64-unknown-linux-gnu/README.md",
            "oy-9.9.9-x86_64-unknown-linux-gnu/LICENSE-MIT",
            "oy-9.9.9-x86_64-unknown-linux-gnu/SECURITY.md",
        ]
    );
    assert_eq!((members[0].1, members[0].2), (0o755, b'5'));
    for (member, entry) in members[1..].iter().zip(fake_entries()) {
        assert_eq!(member.1, entry.mode, "{}", entry.name);
        assert_eq!(member.2, b'0');
        assert_eq!(member.3, entry.contents, "{}", entry.name);
    }
}

#[test]
fn same_inputs_give_the_same_bytes() {
    let a = pack("oy-1.0.0-t", &fake_entries(), 42).unwrap();
    let b = pack("oy-1.0.0-t", &fake_entries(), 42).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, pack("oy-1.0.0-t", &fake_entries(), 43).unwrap());
}

#[test]
fn system_tar_extracts_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let (archive, _) = write_dist(dir.path(), "oy-9.9.9-t", &fake_entries(), 0).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let status = match Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&out)
        .status()
    {
        Ok(status) => status,
        // No tar on this machine: the header-by-header test still holds.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => panic!("running tar: {e}"),
    };
    assert!(status.success());
    for entry in fake_entries() {
        let path = out.join("oy-9.9.9-t").join(&entry.name);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            entry.contents,
            "{}",
            entry.name
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode & 0o111 != 0, entry.mode & 0o111 != 0, "{}", entry.name);
        }
    }
}

#[test]
fn checksum_file_names_the_archive_in_sha256sum_format() {
    let dir = tempfile::tempdir().unwrap();
    let (archive, checksum) =
        write_dist(&dir.path().join("dist"), "oy-9.9.9-t", &fake_entries(), 0).unwrap();
    assert_eq!(archive.file_name().unwrap(), "oy-9.9.9-t.tar.gz");
    assert_eq!(checksum.file_name().unwrap(), "oy-9.9.9-t.tar.gz.sha256");
    let bytes = std::fs::read(&archive).unwrap();
    assert_eq!(
        std::fs::read_to_string(&checksum).unwrap(),
        format!("{}  oy-9.9.9-t.tar.gz\n", sha256_hex(&bytes))
    );
}

#[test]
fn sha256_matches_the_standard_vector() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn entry_names_with_a_slash_or_too_long_are_refused() {
    let mut entries = fake_entries();
    entries[1].name = "../README.md".to_owned();
    assert!(pack("oy-1-t", &entries, 0).is_err());
    entries[1].name = "a".repeat(120);
    assert!(pack("oy-1-t", &entries, 0).is_err());
}

#[test]
fn documents_are_readme_security_and_every_licence_file() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "README.md",
        "SECURITY.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "COPYING",
        "NOTES.md",
    ] {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    std::fs::create_dir(dir.path().join("LICENSES")).unwrap();
    assert_eq!(
        documents(dir.path()).unwrap(),
        [
            "README.md",
            "SECURITY.md",
            "COPYING",
            "LICENSE-APACHE",
            "LICENSE-MIT"
        ]
    );
    std::fs::remove_file(dir.path().join("SECURITY.md")).unwrap();
    let error = documents(dir.path()).unwrap_err().to_string();
    assert!(error.contains("SECURITY.md"), "{error}");
}
