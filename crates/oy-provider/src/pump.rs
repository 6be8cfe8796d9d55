//! One way to turn a backend's "read the next piece and decode it" step
//! into an [`EventStream`](crate::EventStream): decoded events go out in
//! order, an error goes out after every event decoded before it, and
//! nothing is read after the end or the first error.

use std::collections::VecDeque;
use std::future::Future;

use futures_core::Stream;

use crate::error::ProviderError;
use crate::model::Event;

/// A backend's reading state: one wire stream and its decoder.
pub(crate) trait Step: Send + 'static {
    /// Reads what comes next and pushes the events it decodes to `out`.
    /// `Ok(true)` while more may follow, `Ok(false)` once the answer is
    /// complete (or the wire ended and the decoder had its say).
    fn step(
        &mut self,
        out: &mut VecDeque<Event>,
    ) -> impl Future<Output = Result<bool, ProviderError>> + Send;
}

struct Pump<S> {
    source: S,
    pending: VecDeque<Event>,
    error: Option<ProviderError>,
    ended: bool,
}

/// The events `source` decodes, as a stream; the first error ends it.
pub(crate) fn events<S: Step>(
    source: S,
) -> impl Stream<Item = Result<Event, ProviderError>> + Send {
    let pump = Pump {
        source,
        pending: VecDeque::new(),
        error: None,
        ended: false,
    };
    futures_util::stream::unfold(pump, |mut pump| async move {
        loop {
            if let Some(event) = pump.pending.pop_front() {
                return Some((Ok(event), pump));
            }
            if let Some(error) = pump.error.take() {
                return Some((Err(error), pump));
            }
            if pump.ended {
                return None;
            }
            match pump.source.step(&mut pump.pending).await {
                Ok(true) => {}
                Ok(false) => pump.ended = true,
                Err(error) => {
                    // Events decoded before the failure still go out first.
                    pump.ended = true;
                    pump.error = Some(error);
                }
            }
        }
    })
}
