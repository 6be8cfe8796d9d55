//! `ContextBudget`: how big the model's window is and how full a request
//! would make it. Tokens are estimated from bytes, calibrated by the usage
//! the provider reports, so no tokenizer is needed.

/// The window assumed when neither the configuration nor the provider
/// names one for a model oy does not recognise. Small on purpose: local
/// servers often run with short contexts, and compacting early is safe.
pub const FALLBACK_WINDOW: u64 = 32_768;

/// Bytes per token before any usage was reported: conservative for code
/// and English (real ratios run 3.5–4.5), so the estimate errs high.
const DEFAULT_BYTES_PER_TOKEN: f64 = 3.5;

/// The window, the compaction threshold and the bytes-to-tokens ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextBudget {
    window: u64,
    compact_at: f64,
    bytes_per_token: f64,
}

impl ContextBudget {
    /// A budget for a `window`-token model that compacts at `compact_at`
    /// (a fraction, clamped to 0.5–0.95).
    pub fn new(window: u64, compact_at: f64) -> Self {
        Self {
            window: window.max(1024),
            compact_at: compact_at.clamp(0.5, 0.95),
            bytes_per_token: DEFAULT_BYTES_PER_TOKEN,
        }
    }

    /// The same budget for a `window`-token model, keeping the ratio
    /// learned so far.
    #[must_use]
    pub fn with_window(self, window: u64) -> Self {
        Self {
            window: window.max(1024),
            ..self
        }
    }

    /// The window in tokens.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// The token count above which the transcript is compacted.
    pub fn threshold(&self) -> u64 {
        (self.window as f64 * self.compact_at) as u64
    }

    /// Estimated tokens for `bytes` of request text.
    pub fn estimate(&self, bytes: usize) -> u64 {
        (bytes as f64 / self.bytes_per_token).ceil() as u64
    }

    /// Bytes that fit in `tokens`, by the current ratio.
    pub fn bytes_for(&self, tokens: u64) -> usize {
        (tokens as f64 * self.bytes_per_token) as usize
    }

    /// Learns the ratio from a request of `request_bytes` that the
    /// provider counted as `input_tokens`. Implausible reports (a cached
    /// or partial count) are ignored.
    pub fn calibrate(&mut self, request_bytes: usize, input_tokens: u64) {
        if input_tokens < 64 || request_bytes < 256 {
            return;
        }
        let ratio = request_bytes as f64 / input_tokens as f64;
        if (1.0..=8.0).contains(&ratio) {
            // Lean towards the smaller ratio (more tokens): overestimating
            // only compacts a little early.
            self.bytes_per_token = ratio.min(self.bytes_per_token * 1.25);
        }
    }

    /// True when a request of `bytes` would pass the threshold.
    pub fn over(&self, bytes: usize) -> bool {
        self.estimate(bytes) > self.threshold()
    }
}

/// The context window of well-known model families, by id; `None` for a
/// model oy does not recognise.
pub fn known_window(model: &str) -> Option<u64> {
    let lower = model.to_ascii_lowercase();
    let id = lower.rsplit('/').next().unwrap_or(&lower);
    let table: &[(&str, u64)] = &[
        ("gpt-4.1", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-4o", 128_000),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4", 200_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-3.5", 16_385),
        ("claude", 200_000),
        ("anthropic.claude", 200_000),
        ("us.anthropic.claude", 200_000),
        ("amazon.nova", 300_000),
        ("meta.llama3", 128_000),
        ("llama3.1", 128_000),
        ("llama3.2", 128_000),
        ("qwen2.5-coder", 32_768),
        ("qwen3", 40_960),
        ("mistral", 32_768),
        ("gemini", 1_000_000),
        ("deepseek", 128_000),
    ];
    table
        .iter()
        .find(|(prefix, _)| id.starts_with(prefix) || (prefix.len() > 3 && lower.contains(prefix)))
        .map(|(_, window)| *window)
}
