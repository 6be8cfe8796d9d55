//! Shannon entropy: how random a value looks, the measure gitleaks' rules
//! and the audit's secret-named assignments both judge values by.

/// Shannon entropy of `value` in bits per character (0 for an empty one).
pub fn shannon_entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0_u32;
    for c in value.chars() {
        *counts.entry(c).or_insert(0_u32) += 1;
        total += 1;
    }
    let total = f64::from(total);
    counts
        .values()
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::shannon_entropy;

    #[test]
    fn entropy_counts_distinct_characters() {
        assert!(shannon_entropy("").abs() < f64::EPSILON);
        assert!(shannon_entropy("aaaa").abs() < f64::EPSILON);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
    }
}
