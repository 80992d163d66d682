// pp: cache-line ping-pong between CPU 0 and CPU 1; prints the mean one-way latency in ns
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <time.h>
static _Alignas(128) _Atomic long flag = 0;
enum { N = 200000 };
static void pin(int c){ cpu_set_t s; CPU_ZERO(&s); CPU_SET(c,&s); pthread_setaffinity_np(pthread_self(),sizeof s,&s); }
static void* other(void* a){ (void)a; pin(1); for(long i=1;i<2*N;i+=2){ while(atomic_load_explicit(&flag,memory_order_acquire)!=i); atomic_store_explicit(&flag,i+1,memory_order_release);} return 0; }
int main(){ pthread_t t; pin(0); pthread_create(&t,0,other,0);
 struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a);
 for(long i=0;i<2*N;i+=2){ atomic_store_explicit(&flag,i+1,memory_order_release); while(atomic_load_explicit(&flag,memory_order_acquire)!=i+2); }
 clock_gettime(CLOCK_MONOTONIC,&b); pthread_join(t,0);
 printf("one-way %.1f ns\n", ((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/(2.0*N)); return 0; }
