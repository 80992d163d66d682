#include "wf.cuh"
struct P { int a; int *p; char c; float *q; };
__attribute__((device)) int tab[4] = {1,2,3,4};
__attribute__((device)) float ft[2];
__attribute__((device)) P pp = {5, &tab[1], 'x', &ft[1]};
__attribute__((device)) P *pptr = &pp;
WF_GLOBAL void k(int *o) { o[0] = *pp.p + pptr->a + (int)*pp.q; }
