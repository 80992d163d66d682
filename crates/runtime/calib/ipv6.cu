// LAX calibration kernel: IPV6Kernel of document 003 Table 3.1 (longest-prefix-match lookup).
// A multibit trie: a 2^16-entry top table indexed by the first 16 address bits, then 8-bit-stride
// nodes of 256 entries. An entry is 0 (no route), a next hop (bit 31 clear, value > 0) or a child
// node index with bit 31 set; a child's entries inherit the best match so far, so the walk keeps
// the last next hop seen. One thread per packet; addresses are 4 big-endian 32-bit words.
#include "wf.cuh"

WF_GLOBAL void ipv6_lookup(const unsigned *addrs, const unsigned *top, const unsigned *nodes,
                           unsigned *hops, int n) {
  unsigned i = gtid_x();
  if (i >= (unsigned)n) return;
  const unsigned *a = addrs + 4 * i;
  unsigned e = top[a[0] >> 16];
  unsigned best = 0;
  int byte = 2; // next address byte to consume (bytes 0 and 1 index the top table)
  while (e & 0x80000000u) {
    unsigned node = e & 0x7fffffffu;
    unsigned w = a[byte >> 2];
    unsigned b = (w >> (24 - 8 * (byte & 3))) & 0xffu;
    e = nodes[node * 256 + b];
    byte++;
    if (byte >= 16) break;
  }
  if (!(e & 0x80000000u)) best = e;
  hops[i] = best;
}
