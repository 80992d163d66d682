//! Synthetic English-like text for `wc` and `str` (the documents' inputs, an 86 kB text and a
//! 165k-word text, are not available): words drawn from a random vocabulary with a Zipf-like
//! popularity, separated by runs of spaces, newlines and punctuation. The word-boundary rule
//! matches the kernels': a word is a maximal run of bytes `a..=z`.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A random vocabulary of `n` distinct lowercase words of 2 to 10 letters.
pub fn vocabulary(rng: &mut ChaCha8Rng, n: usize) -> Vec<Vec<u8>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let len = rng.gen_range(2..=10);
        let w: Vec<u8> = (0..len).map(|_| rng.gen_range(b'a'..=b'z')).collect();
        if seen.insert(w.clone()) {
            out.push(w);
        }
    }
    out
}

/// Index of a word with Zipf-like popularity (rank r drawn with probability roughly ∝ 1/r).
pub fn zipf_index(rng: &mut ChaCha8Rng, n: usize) -> usize {
    // Inverse CDF of the continuous 1/x law on [1, n + 1).
    let u: f64 = rng.gen();
    let x = ((n as f64 + 1.0).ln() * u).exp();
    (x as usize - 1).min(n - 1)
}

/// A text of `words` words from `vocab` with separators between them.
pub fn text(rng: &mut ChaCha8Rng, vocab: &[Vec<u8>], words: usize) -> Vec<u8> {
    let mut t = Vec::with_capacity(words * 8);
    for i in 0..words {
        if i > 0 {
            match rng.gen_range(0..16) {
                0 => t.extend_from_slice(b". "),
                1 => t.extend_from_slice(b",\n"),
                2 => t.extend_from_slice(b"  "),
                _ => t.push(b' '),
            }
        }
        t.extend_from_slice(&vocab[zipf_index(rng, vocab.len())]);
    }
    t
}

/// Start offsets of the words of `t`.
pub fn word_starts(t: &[u8]) -> Vec<usize> {
    (0..t.len())
        .filter(|&i| t[i].is_ascii_lowercase() && (i == 0 || !t[i - 1].is_ascii_lowercase()))
        .collect()
}

/// The word starting at `i`.
pub fn word_at(t: &[u8], i: usize) -> &[u8] {
    let e = t[i..]
        .iter()
        .position(|c| !c.is_ascii_lowercase())
        .map_or(t.len(), |p| i + p);
    &t[i..e]
}

/// 32-bit FNV-1a, the hash the `wc` kernel computes.
pub fn fnv1a(w: &[u8]) -> u32 {
    w.iter().fold(2_166_136_261u32, |h, &c| {
        (h ^ c as u32).wrapping_mul(16_777_619)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn text_words_come_from_the_vocabulary_with_skew() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let v = vocabulary(&mut rng, 200);
        let t = text(&mut rng, &v, 5000);
        let starts = word_starts(&t);
        assert_eq!(starts.len(), 5000);
        let mut hits = vec![0usize; v.len()];
        for &s in &starts {
            let w = word_at(&t, s);
            let k = v
                .iter()
                .position(|x| x == w)
                .expect("word not in vocabulary");
            hits[k] += 1;
        }
        // Zipf-like: the most popular word is far more frequent than the median one.
        assert!(
            hits[0] > 20 * hits[100].max(1) / 2,
            "{} vs {}",
            hits[0],
            hits[100]
        );
    }
}
