//! `oy chat` edges: a first message on the command line is the first turn,
//! a chat in which nothing was said leaves no session, and `/model ID`
//! checks the id against the provider's list when it can have one.

use crate::cli_chat::chat;
use crate::mock_model::{self, Wire, text};
use crate::support::Oy;

/// The saved sessions' files.
fn saved_sessions(oy: &Oy) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(oy.data.join("oy/sessions")) {
        Ok(entries) => entries.map(|entry| entry.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_first_message_on_the_command_line_is_the_first_turn() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("First answer."), text("Second.")]);
    let mut chat = chat(&oy, &mock, &["where", "is the config read?"]);
    chat.expect("First answer.");
    chat.line("and then?");
    chat.expect("Second.");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        mock_model::user_texts(&requests[0]),
        ["where is the config read?"]
    );
    chat.prompt();
    chat.send("\x04");
    chat.expect("saved");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
    assert_eq!(saved_sessions(&oy).len(), 1);
}

#[test]
fn a_chat_in_which_nothing_was_said_is_not_saved() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("/save");
    chat.expect("nothing to save yet");
    chat.line("/mode plan");
    chat.expect("mode plan");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
    assert!(!chat.screen().contains("saved ·"), "{}", chat.screen());
    assert!(saved_sessions(&oy).is_empty(), "{:?}", saved_sessions(&oy));
    let listed = oy.run(&["sessions", "--json"]);
    assert_eq!(listed.stdout.trim(), "[]", "{}", listed.stderr);
}

#[test]
fn model_switch_is_checked_against_the_providers_list() {
    let oy = Oy::new();
    let listed = ["mock-model", "mock-large"];
    let mock = mock_model::start_listing(Wire::Chat, vec![text("ok")], Some(&listed));
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("/model mock-larg");
    chat.expect("the provider does not list a model `mock-larg`; still mock-model");
    chat.expect("did you mean mock-large");
    chat.line("/model");
    chat.expect("model mock-model");
    chat.line("/model mock-large");
    chat.expect("model mock-large");
    chat.line("hello");
    chat.expect("ok");
    assert_eq!(mock.requests()[0]["model"], "mock-large");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn model_switch_without_a_list_goes_ahead_with_a_note() {
    let oy = Oy::new();
    let mock = mock_model::start_listing(Wire::Chat, vec![], None);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("/model anything-at-all");
    chat.expect("could not check `anything-at-all` against the provider's list");
    chat.expect("model anything-at-all");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}
