// Probe kernels for the mobile calibration suite (docs/calibration.md, "Mobile probes").
//
// Each kernel repeats the access pattern and index arithmetic of one probe whose
// measured output on a real device is public (microsoft/ArchProbe, MIT licence; see
// SOURCES.md), so that recording it with `tracekit record` at the probe's own sizes and
// replaying it on the matching target can be set beside the published curve.  The text
// here is written for tracekit: ArchProbe builds its kernels from C++ string templates,
// and only their arithmetic is reproduced.  Sizes the probe bakes into the source are
// -D defines (record_probes.py passes the probe's values).

#ifndef GROUP
#define GROUP 1024
#endif
#ifndef LOCAL_VECS
#define LOCAL_VECS 2048
#endif

#define REPEAT16(s) s s s s s s s s s s s s s s s s

// Dependent pointer chase through a buffer of int4: one work-item, each step reads
// the next index from the .x of the element the previous step named.
__kernel void buf_pchase(__global const int4 *src, __global int *dst, const int niter)
{
    int idx = 0;
    for (int i = 0; i < niter; ++i)
        idx = src[idx].x;
    *dst = idx;
}

// The same chase through a 1D image of int4 texels, read with a nearest, clamping,
// unnormalised sampler.
__constant sampler_t CHASE_SAMPLER = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

__kernel void img_pchase(__read_only image1d_t src, __global int *dst, const int niter)
{
    int idx = 0;
    for (int i = 0; i < niter; ++i)
        idx = read_imagei(src, CHASE_SAMPLER, idx).x;
    *dst = idx;
}

// Read bandwidth over a footprint of addr_mask + 1 float4 elements: work-group g
// starts at element g * GROUP * 64 + lid, every read moves GROUP elements on, and the
// mask folds the walk back into the footprint.  16 reads per loop turn, niter turns.
#define STEP(LOAD) sum *= LOAD; offset = (offset + GROUP) & addr_mask;

__kernel void buf_bandwidth(__global const float4 *A, __global float4 *B, const int niter, const int addr_mask)
{
    float4 sum = 0;
    int offset = ((int)get_group_id(0) * GROUP * 64 + (int)get_local_id(0)) & addr_mask;
    for (int i = 0; i < niter; ++i) {
        REPEAT16(STEP(A[offset]))
    }
    B[get_local_id(0)] = sum;
}

__constant sampler_t BW_SAMPLER = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

__kernel void img_bandwidth(__read_only image1d_t A, __global float4 *B, const int niter, const int addr_mask)
{
    float4 sum = 0;
    int offset = ((int)get_group_id(0) * GROUP * 64 + (int)get_local_id(0)) & addr_mask;
    for (int i = 0; i < niter; ++i) {
        REPEAT16(STEP(read_imagef(A, BW_SAMPLER, offset)))
    }
    B[get_local_id(0)] = sum;
}

__kernel void const_bandwidth(__constant float4 *A, __global float4 *B, const int niter, const int addr_mask)
{
    float4 sum = 0;
    int offset = ((int)get_group_id(0) * GROUP * 64 + (int)get_local_id(0)) & addr_mask;
    for (int i = 0; i < niter; ++i) {
        REPEAT16(STEP(A[offset]))
    }
    B[get_local_id(0)] = sum;
}

// Local memory: each work-item writes one element of a LOCAL_VECS-element array, then
// the walk above runs over it.
__kernel void local_bandwidth(__global float4 *B, const int niter, const int addr_mask)
{
    __local float4 A[LOCAL_VECS];
    A[get_local_id(0)] = (float4)(get_local_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 sum = 0;
    int offset = ((int)get_group_id(0) * GROUP * 64 + (int)get_local_id(0)) & addr_mask;
    for (int i = 0; i < niter; ++i) {
        REPEAT16(STEP(A[offset]))
    }
    B[get_local_id(0)] = sum;
}

// Peak arithmetic: two dependent multiply-adds per step on a vector of NCOMP
// components of TYPE (float or half); 256 / NCOMP steps per loop turn, so every
// variant does the same arithmetic per work-item.
#ifdef USE_HALF
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#ifndef TYPE
#define TYPE float
#endif
#ifndef VTYPE
#define VTYPE TYPE
#endif
#ifndef NCOMP
#define NCOMP 1
#endif

#define MAD2 x = mad(y, y, x); y = mad(x, x, y);
#define MAD16 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2 MAD2

__kernel void gflops(__global TYPE *out, const int niter)
{
    VTYPE x = (VTYPE)((TYPE)get_local_id(0));
    VTYPE y = (VTYPE)((TYPE)get_local_id(1));
    for (int i = 0; i < niter; ++i) {
#if NCOMP == 1
        MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16
#elif NCOMP == 2
        MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16 MAD16
#elif NCOMP == 4
        MAD16 MAD16 MAD16 MAD16
#elif NCOMP == 8
        MAD16 MAD16
#else
        MAD16
#endif
    }
#if NCOMP == 1
    out[get_global_id(0) >> 31] = y;
#else
    VTYPE s = y;
    TYPE t = 0;
    for (int c = 0; c < NCOMP; ++c) t += ((TYPE *)&s)[c];
    out[get_global_id(0) >> 31] = t;
#endif
}
