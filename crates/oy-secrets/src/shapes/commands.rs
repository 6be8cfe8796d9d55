//! Passwords and tokens on command lines: flags that name a secret
//! (`--password`, `--api-key`, `-storepass`), the short flags of tools that
//! take a password (`mysql -p`, `sshpass -p`, `redis-cli -a`, `sqlcmd -P`,
//! `ldapsearch -w`, `7z -p`, `xfreerdp /p:`), `user:password` and
//! `user%password` arguments, OpenSSL's `pass:`, and passwords piped into
//! `sudo -S`, `chpasswd` or `--password-stdin`.
//!
//! Every shape's group 1 is the secret, checked against variables,
//! placeholders, further flags and file references
//! ([`checks::cli_secret`]); a secret-named long flag followed by a space
//! (`--token abc`) also reads as prose ("pass --token to…"), so its value
//! must look like a secret ([`checks::cli_spaced_secret`]).

use crate::checks;
use crate::shape::{Scope, Shape};

use Scope::Anywhere;

/// A command's name (case ignored), then the rest of its line.
macro_rules! command {
    ($names:literal, $rest:literal) => {
        concat!(r"(?i)(?-u:\b)(?:", $names, r")(?-u:\b)[^\n]*?", $rest)
    };
}

/// The secret after a flag: group 1, quoted or not.
macro_rules! value {
    () => {
        r#"["']?([^\s"'][^\s"']*)"#
    };
}

/// Flag names that hold a secret, after any `word-` prefix
/// (`--db-password`, `--oauth2-bearer`, `-storepass`).
macro_rules! secret_flags {
    () => {
        r"(?:[a-z0-9]+[-_])*(?:password|passwd|passphrase|pass|pwd|secret|token|api[-_]?key|access[-_]?key|secret[-_]?key|auth[-_]?key|auth[-_]?token|client[-_]?secret|bearer|creds|(?:src|dest)?storepass|(?:src|dest)?keypass|bindpw|rootpw|passin|passout)"
    };
}

/// One of these is in every secret-named flag (`api-key`, `access_key`,
/// `authkey`; the others hold `pass`, `secret` or `token`).
const FLAG_KEYWORDS: &[&str] = &[
    "pass",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api-key",
    "api_key",
    "accesskey",
    "access-key",
    "access_key",
    "authkey",
    "auth-key",
    "auth_key",
    "bearer",
    "creds",
    "bindpw",
    "rootpw",
];

pub(super) const COMMANDS: &[Shape] = &[
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?i)(?-u:\b)curl(?-u:\b)[^\n]*\s(?:-u|--user)(?:\s+|=)?["']?[^\s:"']*:[^\s"']+"#,
        &["curl"],
        concat!("curl -u admin:", "Tr0ub4dor3x", " https://api.internal/"),
    )
    .with_check(checks::cli_password),
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?-u:\b)(?i:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump)(?-u:\b)[^\n]*\s-p["']?[^\s"'-][^\s"']*"#,
        &["mysql", "mariadb"],
        concat!("mysql -h db -u root -p", "Tr0ub4dor3x", " app"),
    )
    .with_check(checks::cli_password),
    // Registry logins: `docker login -p`, `podman login --password=`,
    // `helm registry login -p`, `oras login -p`.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            command!(
                "docker|podman|buildah|nerdctl|helm|oras|crane|skopeo|regctl|singularity|apptainer",
                r"(?-u:\b)login(?-u:\b)[^\n]*?\s(?:-p|--password)(?:\s+|=)"
            ),
            value!()
        ),
        &[
            "docker", "podman", "buildah", "nerdctl", "helm", "oras", "crane", "skopeo",
            "regctl", "singularity", "apptainer",
        ],
        concat!("docker login -u ci -p ", "Tr0ub4dor3x", " registry.example.org"),
    )
    .with_check(checks::cli_secret),
    // `--password=…`, `--api-key=…`, `-storepass=…` (an `=` says it is
    // the flag's value).
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r#"(?i)(?:^|[\s"'(\[,=])--?"#,
            secret_flags!(),
            "=",
            value!()
        ),
        FLAG_KEYWORDS,
        concat!("./deploy --db-password=", "Tr0ub4dor3x", " --env prod"),
    )
    .with_check(checks::cli_secret),
    // `--password VALUE`, `-storepass VALUE`.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r#"(?i)(?:^|[\s"'(\[,])--?"#,
            secret_flags!(),
            r"[ \t]+",
            value!()
        ),
        FLAG_KEYWORDS,
        concat!("keytool -list -keystore app.jks -storepass ", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_spaced_secret),
    // Tools whose short flag takes the password.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            command!(
                "sshpass|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|rdesktop|psexec|psexec\\.py|smbpasswd",
                r"\s-p\s*"
            ),
            value!()
        ),
        &[
            "sshpass", "mongo", "rdesktop", "psexec", "smbpasswd",
        ],
        concat!("sshpass -p ", "Tr0ub4dor3x", " ssh deploy@web1"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r"(?i)(?-u:\b)az\s+login(?-u:\b)[^\n]*?\s(?:-p|--password)(?:\s+|=)",
            value!()
        ),
        &["az login"],
        concat!("az login -u admin@corp.example -p ", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(command!("redis-cli|keydb-cli", r"\s-a\s+"), value!()),
        &["redis-cli", "keydb-cli"],
        concat!("redis-cli -h cache -a ", "Tr0ub4dor3x", " ping"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r"(?-u:\b)(?i:sqlcmd|bcp|osql|isql|mssql-cli|zip|unzip|zipcloak)(?-u:\b)[^\n]*?\s-P\s*",
            value!()
        ),
        &["sqlcmd", "bcp", "osql", "isql", "mssql-cli", "zip"],
        concat!("sqlcmd -S db -U sa -P ", "Tr0ub4dor3x", " -Q \"select 1\""),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            command!(
                "ldapsearch|ldapadd|ldapmodify|ldapdelete|ldappasswd|ldapwhoami|ldapcompare|ldapmodrdn|ldapexop",
                r"\s-w\s+"
            ),
            value!()
        ),
        &["ldap"],
        concat!("ldapsearch -x -D cn=admin,dc=corp -w ", "Tr0ub4dor3x", " -b dc=corp"),
    )
    .with_check(checks::cli_secret),
    // Archivers that take the password glued to `-p`.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(command!("7z|7za|7zr|rar|unrar", r"\s-p"), value!()),
        &["7z", "rar"],
        concat!("7z a -p", "Tr0ub4dor3x", " backup.7z data/"),
    )
    .with_check(checks::cli_secret),
    // `user%password` (Samba tools), `user,password` (lftp),
    // `/p:password` (FreeRDP), `user/password@db` (Oracle).
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            command!(
                "smbclient|rpcclient|smbmap|smbget|winexe|crackmapexec|nxc|netexec|mount\\.cifs",
                r#"\s(?:-U|--user(?:name)?)[= ]["']?[^\s%"']+%"#
            ),
            value!()
        ),
        &[
            "smbclient", "rpcclient", "smbmap", "smbget", "winexe", "crackmapexec", "nxc",
            "netexec", "mount.cifs",
        ],
        concat!("smbclient //fs/share -U 'corp\\\\svc%", "Tr0ub4dor3x", "'"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(command!("lftp", r#"\s-u\s+["']?[^\s,"']+,"#), value!()),
        &["lftp"],
        concat!("lftp -u deploy,", "Tr0ub4dor3x", " sftp://files"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(command!("xfreerdp|wlfreerdp|sdl-freerdp|freerdp", r"\s/p(?:assword)?:"), value!()),
        &["freerdp"],
        concat!("xfreerdp /v:host /u:admin /p:", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r"(?i)(?-u:\b)(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)\s+(?:-\w+\s+)*[A-Za-z0-9_$#]+/",
            r#"([^\s@/"']+)@"#
        ),
        &["sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl"],
        concat!("sqlplus -s scott/", "Tr0ub4dor3x", "@orcl @report.sql"),
    )
    .with_check(checks::cli_secret),
    // Windows: `net use \\host\share PASSWORD /user:…` or `/user:… PASSWORD`.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(r"(?i)(?-u:\b)net\s+use\s+[^\n]*?/user:\S+\s+", value!()),
        &["net use"],
        concat!("net use Z: \\\\fs\\share /user:CORP\\svc ", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?i)(?-u:\b)net\s+use\s+(?:\S+:\s+)?\\\\\S+\s+["']?([^\s"'/][^\s"']*)["']?\s+/user:"#,
        &["net use"],
        concat!("net use Z: \\\\fs\\share ", "Tr0ub4dor3x", " /user:CORP\\svc"),
    )
    .with_check(checks::cli_secret),
    // OpenSSL and friends: `-passin pass:…`, `-passout pass:…`, `-k …`.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(r#"(?i)(?:^|[\s"'=])pass:"#, value!()),
        &["pass:"],
        concat!("openssl pkcs12 -export -in c.pem -passout pass:", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(command!("openssl", r"\senc\s[^\n]*?\s-k\s+"), value!()),
        &["openssl"],
        concat!("openssl enc -aes-256-cbc -in a -out b -k ", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
    // Positional passwords: `htpasswd -b file user PASSWORD`,
    // `rabbitmqctl add_user user PASSWORD`, `aws configure set
    // aws_secret_access_key VALUE`.
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?i)(?-u:\b)htpasswd\s+-[A-Za-z]*b[A-Za-z]*(?:\s+["']?[^\s"']+["']?){2,3}"#,
        &["htpasswd"],
        concat!("htpasswd -bc .htpasswd admin ", "Tr0ub4dor3x"),
    )
    .with_check(checks::htpasswd_password),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r"(?i)(?-u:\b)rabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+",
            value!()
        ),
        &["rabbitmqctl"],
        concat!("rabbitmqctl add_user app ", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r"(?i)(?-u:\b)configure\s+set\s+(?:[\w.-]+\.)?(?:aws_secret_access_key|aws_session_token|secret_key|password|token)\s+",
            value!()
        ),
        &["configure set"],
        concat!("aws configure set aws_secret_access_key ", "Tr0ub4dor3x/Zk9xQ2mT7"),
    )
    .with_check(checks::cli_secret),
    // Passwords piped or here-stringed into a command that reads one.
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r#"(?i)(?-u:\b)(?:echo|printf)\s+(?:-[neE]+\s+)?["']?([^\s"'|]+)["']?\s*\|\s*"#,
            r"(?:sudo\s+(?:-\w+\s+)*-S|chpasswd|passwd(?-u:\b)|[^\n|]*--password-stdin|[^\n|]*--passphrase-fd|[^\n|]*--with-token)"
        ),
        &["sudo", "chpasswd", "passwd", "password-stdin", "passphrase-fd", "with-token"],
        concat!("echo '", "Tr0ub4dor3x", "' | sudo -S systemctl restart app"),
    )
    .with_check(checks::cli_secret),
    Shape::new(
        "cli-password",
        Anywhere,
        concat!(
            r"(?i)(?:--password-stdin|--passphrase-fd\s+0|--with-token)[^\n]*?<<<\s*",
            value!()
        ),
        &["password-stdin", "passphrase-fd", "with-token"],
        concat!("docker login -u ci --password-stdin <<< ", "Tr0ub4dor3x"),
    )
    .with_check(checks::cli_secret),
];
