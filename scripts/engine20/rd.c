#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>
int main(){ struct timespec a,b; uint64_t s=0; int N=10000000;
clock_gettime(CLOCK_MONOTONIC,&a); for(int i=0;i<N;i++) s+=__rdtsc(); clock_gettime(CLOCK_MONOTONIC,&b);
printf("rdtsc %.2f ns (%llu)\n", ((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/N, (unsigned long long)(s&1));
clock_gettime(CLOCK_MONOTONIC,&a); for(int i=0;i<N;i++){ _mm_pause(); } clock_gettime(CLOCK_MONOTONIC,&b);
printf("pause %.2f ns\n", ((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/N);
return 0;}
