// Probe kernels for the clpeak suite (Intel HD Graphics 530; see SOURCES.md).
//
// Each kernel repeats the arithmetic and access pattern of one kernel of clpeak 1.1.x
// (krrishnarraj/clpeak, tag 1.1.2, Apache License 2.0): global memory bandwidth
// (global_bandwidth_kernels.cl), single-precision compute (compute_sp_kernels.cl) and
// integer compute (compute_integer_kernels.cl).  clpeak writes one kernel per vector
// width; here one kernel body serves every width, picked with -D defines that record.py
// passes:
//
//   VEC    vector width, 1 2 4 8 or 16
//   VTYPE  the element type at that width (float, float2, ..., int16)
//   INTEGER  set for the integer kernel (VTYPE is then int..int16); the float kernels
//            are left out of that build, and the integer one out of the others
//
// The text is written for tracekit; only clpeak's arithmetic, loop counts and index
// walks are reproduced.

#ifndef VEC
#define VEC 1
#endif
#ifndef VTYPE
#define VTYPE float
#endif

// Sum of a vector's components, left to right (clpeak's bandwidth kernels and its
// compute kernels up to width 8 add the components one after another).
#if VEC == 1
#define HSUM(v) (v)
#elif VEC == 2
#define HSUM(v) ((v).s0 + (v).s1)
#elif VEC == 4
#define HSUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#elif VEC == 8
#define HSUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7)
#elif VEC == 16
#define HSUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7 \
                 + (v).s8 + (v).s9 + (v).sa + (v).sb + (v).sc + (v).sd + (v).se + (v).sf)
#else
#error "VEC must be 1, 2, 4, 8 or 16"
#endif

#ifndef INTEGER
// ---------------------------------------------------------------------------------
// Global memory bandwidth.  Every work-item loads 16 elements of VTYPE (four turns of
// four loads), adds them into one VTYPE, folds its components and stores one float.
// Nothing else is computed, so the launch moves global_size x 16 x sizeof(VTYPE)
// bytes in, which is every element of A once.

#define LOAD_STEP(sum, idx, src, step) sum += src[idx]; idx += step;
#define LOAD_FOUR(sum, idx, src, step) \
    LOAD_STEP(sum, idx, src, step) LOAD_STEP(sum, idx, src, step) \
    LOAD_STEP(sum, idx, src, step) LOAD_STEP(sum, idx, src, step)

// clpeak's "*_local_offset" walk: work-group g owns the contiguous block of
// local_size x 16 elements starting at g x local_size x 16; at each load the group's
// items read local_size consecutive elements, then all move on by local_size.
__kernel void bw_local_offset(__global VTYPE *A, __global float *B)
{
    int idx = (int)(get_group_id(0) * get_local_size(0) * 16) + (int)get_local_id(0);
    const int step = (int)get_local_size(0);
    VTYPE sum = 0;
    for (int turn = 0; turn < 4; turn++) {
        LOAD_FOUR(sum, idx, A, step)
    }
    B[get_global_id(0)] = HSUM(sum);
}

// clpeak's "*_global_offset" walk: item i reads element i, then moves on by the whole
// global size, so each of the 16 loads of the launch sweeps one contiguous slab of
// global_size elements.  As in clpeak the step is get_global_size(0): in the recorded
// launch, which keeps only the first work-groups (../recording.py), that is the
// recorded grid's size (SOURCES.md, "Deviations").

__kernel void bw_global_offset(__global VTYPE *A, __global float *B)
{
    int idx = (int)get_global_id(0);
    const int step = (int)get_global_size(0);
    VTYPE sum = 0;
    for (int turn = 0; turn < 4; turn++) {
        LOAD_FOUR(sum, idx, A, step)
    }
    B[get_global_id(0)] = HSUM(sum);
}

// ---------------------------------------------------------------------------------
// Peak arithmetic.  Two values x and y update each other in one dependent chain per
// component (clpeak's MAD_4 pattern: x from y and x, then y from x and y, ...); 16
// updates per loop turn and 128 / VEC turns (float: 2048 mads = 4096 flops per
// work-item at every width) or 64 / VEC turns (int: 1024 multiply-add pairs = 2048
// integer operations per work-item).

#endif  // !INTEGER

// Lane k of x starts at a + k, as clpeak's (_A, _A+1, ...) initialisers do.
#if VEC == 1
#define RAMP(a) (a)
#elif VEC == 2
#define RAMP(a) (VTYPE)((a), (a) + 1)
#elif VEC == 4
#define RAMP(a) (VTYPE)((a), (a) + 1, (a) + 2, (a) + 3)
#elif VEC == 8
#define RAMP(a) (VTYPE)((a), (a) + 1, (a) + 2, (a) + 3, (a) + 4, (a) + 5, (a) + 6, (a) + 7)
#else
#define RAMP(a) (VTYPE)((a), (a) + 1, (a) + 2, (a) + 3, (a) + 4, (a) + 5, (a) + 6, (a) + 7, \
                        (a) + 8, (a) + 9, (a) + 10, (a) + 11, (a) + 12, (a) + 13, (a) + 14, (a) + 15)
#endif

// The width-16 kernels fold lane pairs first (eight two-lane sums, then the two lanes),
// as clpeak's compute kernels do.
#ifndef INTEGER
#define FMAD4(x, y) x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define FMAD16(x, y) FMAD4(x, y) FMAD4(x, y) FMAD4(x, y) FMAD4(x, y)

__kernel void compute_sp(__global float *ptr, float a)
{
    VTYPE x = RAMP(a);
    VTYPE y = (VTYPE)((float)get_local_id(0));
    for (int i = 0; i < 128 / VEC; i++) {
        FMAD16(x, y)
    }
#if VEC == 16
    float2 t = y.s01 + y.s23 + y.s45 + y.s67 + y.s89 + y.sab + y.scd + y.sef;
    ptr[get_global_id(0)] = t.s0 + t.s1;
#else
    ptr[get_global_id(0)] = HSUM(y);
#endif
}

#endif  // !INTEGER

#ifdef INTEGER
// Integer: the same chain with a separate multiply and add (clpeak does not call mad
// for int), counted as two operations per pair.
#define IMAD4(x, y) x = (y * x) + y; y = (x * y) + x; x = (y * x) + y; y = (x * y) + x;
#define IMAD16(x, y) IMAD4(x, y) IMAD4(x, y) IMAD4(x, y) IMAD4(x, y)

__kernel void compute_int(__global int *ptr, int a)
{
    VTYPE x = RAMP(a);
    VTYPE y = (VTYPE)((int)get_local_id(0));
    for (int i = 0; i < 64 / VEC; i++) {
        IMAD16(x, y)
    }
#if VEC == 16
    int2 t = y.s01 + y.s23 + y.s45 + y.s67 + y.s89 + y.sab + y.scd + y.sef;
    ptr[get_global_id(0)] = t.s0 + t.s1;
#else
    ptr[get_global_id(0)] = HSUM(y);
#endif
}
#endif  // INTEGER
