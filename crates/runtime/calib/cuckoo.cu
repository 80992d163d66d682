// LAX calibration kernel: cuckooKernel of document 003 Table 3.1 (MAC -> port lookup in a
// two-choice cuckoo hash table). Each thread looks up `per` keys (48-bit MACs held as 64-bit
// values): bucket h1 then bucket h2, each of 4 slots of (key, port); a miss returns 0xffffffff.
#include "wf.cuh"

WF_DEVICE unsigned hash1(unsigned long long k, unsigned mask) {
  unsigned long long h = k * 0x9E3779B97F4A7C15ull;
  return (unsigned)(h >> 32) & mask;
}
WF_DEVICE unsigned hash2(unsigned long long k, unsigned mask) {
  unsigned long long h = (k ^ (k >> 29)) * 0xBF58476D1CE4E5B9ull;
  return (unsigned)(h >> 35) & mask;
}

WF_GLOBAL void cuckoo_lookup(const unsigned long long *keys, const unsigned long long *slot_keys,
                             const unsigned *slot_vals, unsigned *ports, int n, int per,
                             unsigned bucket_mask) {
  unsigned stride = ntid_x() * nctaid_x();
  for (int r = 0; r < per; r++) {
    unsigned i = gtid_x() + (unsigned)r * stride;
    if (i >= (unsigned)n) return;
    unsigned long long k = keys[i];
    unsigned port = 0xffffffffu;
    unsigned b = hash1(k, bucket_mask);
    for (int s = 0; s < 4; s++)
      if (slot_keys[4 * b + s] == k) port = slot_vals[4 * b + s];
    if (port == 0xffffffffu) {
      b = hash2(k, bucket_mask);
      for (int s = 0; s < 4; s++)
        if (slot_keys[4 * b + s] == k) port = slot_vals[4 * b + s];
    }
    ports[i] = port;
  }
}
