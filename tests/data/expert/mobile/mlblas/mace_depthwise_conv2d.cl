// tracekit expert-review test data (tests/data/expert/mobile/mlblas): case mace_depthwise_conv2d
//
// Origin: github.com/XiaoMi/mace, commit 0fc55a548ef41b37fd15fd8944de5155eb09b3c1
//   mace/ops/opencl/cl/depthwise_conv2d.cl (last changed in dd2cdb013d0bb6858a15500349ab07b3f589e2f3) with
//   mace/ops/opencl/cl/common.h inlined at its #include.
//   (upstream has mace/ops/opencl/cl/depthwise_conv2d.cl at 2731466205ff95e0ea591f9a8f692b4467ef7c17)
// Licence: MACE is released under the Apache License, Version 2.0 (LICENSE in the MACE
//   repository; the licence header of common.h is kept verbatim below). Its kernel .cl files
//   carry no header of their own.
//
// Kernel recorded: depthwise_conv2d_s1 (image2d_t tensors, stride 1, multiplier 1), float32.
// Build options (mace/ops/opencl/image/depthwise_conv2d.cc, opencl_executor.cc BuildProgram):
//   -Ddepthwise_conv2d_s1=depthwise_conv2d_s1 -DDATA_TYPE=float -DCMD_DATA_TYPE=f -DBIAS
//   -DSTRIDE=1 -DUSE_RELUX -DNON_UNIFORM_WORK_GROUP  -Werror -cl-mad-enable -cl-fast-relaxed-math
//   (NON_UNIFORM_WORK_GROUP: the device supports OpenCL 2.0 non-uniform work-groups, as Adreno 6xx
//   does; OUT_OF_RANGE_CHECK is off in release builds).

// ---- begin mace/ops/opencl/cl/depthwise_conv2d.cl (MACE, last changed in dd2cdb013d0b) ----
// #include <common.h>  -- inlined:
// ---- begin mace/ops/opencl/cl/common.h (MACE, last changed in ca46a303a1f6) ----
// Copyright 2018 The MACE Authors. All Rights Reserved.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

#ifndef MACE_OPS_OPENCL_CL_COMMON_H_
#define MACE_OPS_OPENCL_CL_COMMON_H_

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define VEC_DATA_TYPE_STR(data_type, size) data_type##size
#define VEC_DATA_TYPE(data_type, size) VEC_DATA_TYPE_STR(data_type, size)

#define CMD_TYPE_STR(cmd, type) cmd##type
#define CMD_TYPE(cmd, type) CMD_TYPE_STR(cmd, type)

#define DATA_TYPE4 VEC_DATA_TYPE(DATA_TYPE, 4)
#define OUT_DATA_TYPE4 VEC_DATA_TYPE(OUT_DATA_TYPE, 4)
#define IN_DATA_TYPE4 VEC_DATA_TYPE(IN_DATA_TYPE, 4)

#define CONVERT_STR(value, type) convert_##type((value))

#define CONVERT_TO(value, type) CONVERT_STR(value, type)
#define CONVERT(value) CONVERT_TO(value, DATA_TYPE)
#define CONVERT4(value) CONVERT_TO(value, DATA_TYPE4)

#define GLOBAL_WORK_GROUP_SIZE_DIM2       \
    __private const int global_size_dim0, \
    __private const int global_size_dim1,

#define GLOBAL_WORK_GROUP_SIZE_DIM3       \
    __private const int global_size_dim0, \
    __private const int global_size_dim1, \
    __private const int global_size_dim2,

// oorc for 'Out Of Range Check'
#ifdef OUT_OF_RANGE_CHECK
#define OUT_OF_RANGE_PARAMS \
  __global int *oorc_flag,

#define BUFFER_OUT_OF_RANGE_PARAMS      \
  __global int *oorc_flag,              \
  __private const int oorc_output_length,

#define CHECK_OUT_OF_RANGE_FOR_IMAGE2D(image, coord) \
  check_out_of_range_for_image2d(image, (coord).x, (coord).y, oorc_flag);

#define CHECK_OUT_OF_RANGE_FOR_BUFFER(idx) \
  check_out_of_range_for_buffer(oorc_output_length, (idx), oorc_flag);
#else
#define OUT_OF_RANGE_PARAMS
#define BUFFER_OUT_OF_RANGE_PARAMS
#define CHECK_OUT_OF_RANGE_FOR_IMAGE2D(image, coord)
#define CHECK_OUT_OF_RANGE_FOR_BUFFER(idx)
#endif

#define READ_IMAGET(image, sampler, coord) \
  CMD_TYPE(read_image, CMD_DATA_TYPE)(image, sampler, coord)
#define WRITE_IMAGET(image, coord, value)        \
  CHECK_OUT_OF_RANGE_FOR_IMAGE2D(image, coord)   \
  CMD_TYPE(write_image, CMD_DATA_TYPE)(image, coord, value);

#define VSTORE4(data, output, offset)         \
  CHECK_OUT_OF_RANGE_FOR_BUFFER((offset) + 3) \
  vstore4(data, 0, output + (offset));


__constant sampler_t SAMPLER =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

inline float4 do_sigmoid(float4 in) {
  // native_func not support half
  return native_recip(1.0f + native_exp(-in));
}

#ifdef DATA_TYPE
inline DATA_TYPE4 do_activation(DATA_TYPE4 in,
#if defined (USE_PRELU)
                                DATA_TYPE4 alpha,
#endif
                                __private const float relux_max_limit,
                                __private const float activation_coefficient) {
  DATA_TYPE4 out;
#ifdef USE_RELU
  out = fmax(in, (DATA_TYPE)0);
#endif
#ifdef USE_RELUX
  out = clamp(in, (DATA_TYPE4)0, relux_max_limit);
#endif
#ifdef USE_PRELU
  out = select(alpha * in, in, in >= (DATA_TYPE)0);
#endif
#ifdef USE_ELU
  out = select(activation_coefficient * (native_exp(in) - 1.0f),
               in, in >= (DATA_TYPE)0);
#endif
#ifdef USE_TANH
  out = tanh(in);
#endif
#ifdef USE_SIGMOID
  out = do_sigmoid(in);
#endif
#ifdef USE_LEAKYRELU
  out = select(activation_coefficient * in, in, in >= (DATA_TYPE)0);
#endif
  return out;
}
#endif

inline void check_out_of_range_for_image2d(__write_only image2d_t image,
                                           __private const int x,
                                           __private const int y,
                                           __global int *oorc_flag) {
  int2 image_dim = get_image_dim(image);
  if (x >= image_dim.x || y >= image_dim.y) {
    int idx = x * 1000000 + y;
    if (idx == 0) {
      idx = 1;
    }
    *oorc_flag = idx;
  }
}

inline void check_out_of_range_for_buffer(__private const int length,
                                          __private const int idx,
                                          __global int *oorc_flag) {
  if (idx >= length) {
    *oorc_flag = idx - length + 1;
  }
}


#endif  // MACE_OPS_OPENCL_CL_COMMON_H_
// ---- end mace/ops/opencl/cl/common.h ----

// Only multiplier = 1 is supported
__kernel void depthwise_conv2d(OUT_OF_RANGE_PARAMS
                               GLOBAL_WORK_GROUP_SIZE_DIM3
                               __read_only image2d_t input, /* [c%4 * w * c/4, h * b] */
                               __read_only image2d_t filter, /* cout%4 * kh * kw * m, cin/4 */
#ifdef BIAS
    __read_only image2d_t bias, /* cout%4 * cout/4 */
#endif
                               __write_only image2d_t output,
                               __private const float relux_max_limit,
                               __private const float activation_coefficient,
                               __private const short in_height,
                               __private const short in_width,
                               __private const short in_ch_blks,
                               __private const short out_height,
                               __private const short out_width,
                               __private const short filter_height,
                               __private const short filter_width,
                               __private const short padding_top,
                               __private const short padding_left,
                               __private const short dilation_h,
                               __private const short dilation_w) {
  const short out_ch_blk = get_global_id(0);
  const short out_w_blk = get_global_id(1);
  const short out_hb = get_global_id(2);

#ifndef NON_UNIFORM_WORK_GROUP
  if (out_ch_blk >= global_size_dim0 || out_w_blk >= global_size_dim1
      || out_hb >= global_size_dim2) {
    return;
  }
#endif
  const short out_w_blks = global_size_dim1;

  const short rounded_in_ch = in_ch_blks << 2;
  const short in_ch_blk = out_ch_blk; // multiplier = 1

#ifdef BIAS
  DATA_TYPE4 out0 =
     READ_IMAGET(bias, SAMPLER, (int2)(out_ch_blk, 0));
  DATA_TYPE4 out1 = out0;
  DATA_TYPE4 out2 = out0;
  DATA_TYPE4 out3 = out0;
#else
  DATA_TYPE4 out0 = 0;
  DATA_TYPE4 out1 = 0;
  DATA_TYPE4 out2 = 0;
  DATA_TYPE4 out3 = 0;
#endif

  const short out_h = out_hb % out_height;
#if STRIDE == 1
  const short in_width0 = out_w_blk - padding_left;
  const short in_width1 = in_width0 + out_w_blks;
  const short in_width2 = in_width1 + out_w_blks;
  const short in_width3 = in_width2 + out_w_blks;
  const short height_idx = out_h - padding_top;
#elif STRIDE == 2
  int in_width0 = (out_w_blk << 1) - padding_left;
  int in_width1 = ((out_w_blk + out_w_blks) << 1) - padding_left;
  int in_width2 = ((out_w_blk + (out_w_blks << 1)) << 1) - padding_left;
  int in_width3 = ((out_w_blk + (out_w_blks << 1) + out_w_blks) << 1) - padding_left;
  const int height_idx = (out_h << 1) - padding_top;
#else
  const short in_width_stride = mul24(out_w_blks, STRIDE);
  const short in_width0 = mad24(out_w_blk, STRIDE, -padding_left);
  const short in_width1 = in_width0 + in_width_stride;
  const short in_width2 = in_width1 + in_width_stride;
  const short in_width3 = in_width2 + in_width_stride;
  const short height_idx = mad24(out_h, STRIDE, -padding_top);
#endif

  const short batch_idx = mul24((out_hb / out_height), in_height);
  const short rounded_in_ch_x_filter_width = mul24(rounded_in_ch, filter_width);

  const short in_idx = mul24(in_ch_blk, in_width);
  short filter_idx = 0;
  short in_hb_idx = height_idx;
  for (short filter_h_idx = 0; filter_h_idx < filter_height; ++filter_h_idx) {
    short in_hb = select(in_hb_idx + batch_idx,
                         -1,
                         (in_hb_idx < 0 || in_hb_idx >= in_height));
    short in_w_idx = 0;
    for (short filter_w_idx = 0; filter_w_idx < filter_width; ++filter_w_idx) {
      short in_w;
      DATA_TYPE4 in0, in1, in2, in3;
#define READ_INPUT(i)                                   \
      in_w = in_w_idx + in_width##i; \
      in_w = select(in_idx + in_w,                      \
                    -1,                                 \
                    (in_w < 0 || in_w >= in_width));    \
      in##i = READ_IMAGET(input, SAMPLER, (int2)(in_w, in_hb));

      READ_INPUT(0);
      READ_INPUT(1);
      READ_INPUT(2);
      READ_INPUT(3);

#undef READ_INPUT

      DATA_TYPE4 weights = READ_IMAGET(filter, SAMPLER,
                                       (int2)(filter_idx, in_ch_blk));

      out0 = mad(in0, weights, out0);
      out1 = mad(in1, weights, out1);
      out2 = mad(in2, weights, out2);
      out3 = mad(in3, weights, out3);
      ++filter_idx;
      in_w_idx += dilation_w;
    }
    in_hb_idx += dilation_h;
  }

#if  defined(USE_RELU) || defined(USE_LEAKYRELU) || defined(USE_RELUX) || defined(USE_TANH) || defined(USE_SIGMOID) || defined(USE_ELU)
  out0 = do_activation(out0, relux_max_limit, activation_coefficient);
  out1 = do_activation(out1, relux_max_limit, activation_coefficient);
  out2 = do_activation(out2, relux_max_limit, activation_coefficient);
  out3 = do_activation(out3, relux_max_limit, activation_coefficient);
#endif

  const short out_x_base = mul24(out_ch_blk, out_width);
  short w = out_w_blk;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out0);

  w += out_w_blks;
  if (w >= out_width) return;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out1);

  w += out_w_blks;
  if (w >= out_width) return;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out2);

  w += out_w_blks;
  if (w >= out_width) return;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out3);
}

__kernel void depthwise_conv2d_s1(OUT_OF_RANGE_PARAMS
                                  GLOBAL_WORK_GROUP_SIZE_DIM3
                                  __read_only image2d_t input, /* [c%4 * w * c/4, h * b] */
                                  __read_only image2d_t filter, /* cout%4 * kh * kw * m, cin/4 */
#ifdef BIAS
    __read_only image2d_t bias, /* cout%4 * cout/4 */
#endif
                                  __write_only image2d_t output,
                                  __private const DATA_TYPE relux_max_limit,
                                  __private const DATA_TYPE activation_coefficient,
                                  __private const short in_height,
                                  __private const short in_width,
                                  __private const short in_ch_blks,
                                  __private const short out_height,
                                  __private const short out_width,
                                  __private const short filter_height,
                                  __private const short filter_width,
                                  __private const short padding_top,
                                  __private const short padding_left) {
  const short out_ch_blk = get_global_id(0);
  const short out_w_blk = get_global_id(1) << 2;
  const short out_hb = get_global_id(2);

#ifndef NON_UNIFORM_WORK_GROUP
  if (out_ch_blk >= global_size_dim0 || get_global_id(1) >= global_size_dim1
      || out_hb >= global_size_dim2) {
    return;
  }
#endif

  const short rounded_in_ch = in_ch_blks << 2;
  const short in_ch_blk = out_ch_blk; // multiplier = 1

#ifdef BIAS
  DATA_TYPE4 out0 =
     READ_IMAGET(bias, SAMPLER, (int2)(out_ch_blk, 0));
  DATA_TYPE4 out1 = out0;
  DATA_TYPE4 out2 = out0;
  DATA_TYPE4 out3 = out0;
#else
  DATA_TYPE4 out0 = 0;
  DATA_TYPE4 out1 = 0;
  DATA_TYPE4 out2 = 0;
  DATA_TYPE4 out3 = 0;
#endif

  const short out_h = out_hb % out_height;
  const short in_width0 = out_w_blk - padding_left;
  const short in_width1 = in_width0 + 1;
  const short in_width2 = in_width1 + 1;
  const short in_width3 = in_width2 + 1;
  const short height_idx = out_h - padding_top;

  const short batch_idx = mul24((out_hb / out_height), in_height);
  const short rounded_in_ch_x_filter_width = mul24(rounded_in_ch, filter_width);

  const short in_idx = mul24(in_ch_blk, in_width);
  short filter_idx = 0;
  short in_hb_idx = height_idx;

  const short in_w_idx0 = select(in_idx + in_width0,
                                 -1,
                                 (in_width0 < 0 || in_width0 >= in_width));
  const short in_w_idx1 = select(in_idx + in_width1,
                                 -1,
                                 (in_width1 < 0 || in_width1 >= in_width));
  const short in_w_idx2 = select(in_idx + in_width2,
                                 -1,
                                 (in_width2 < 0 || in_width2 >= in_width));

  short in_w;
  DATA_TYPE4 in0, in1, in2, in3;
  for (short filter_h_idx = 0; filter_h_idx < filter_height; ++filter_h_idx) {
    short in_hb = select(in_hb_idx + batch_idx,
                         -1,
                         (in_hb_idx < 0 || in_hb_idx >= in_height));
    in1 = READ_IMAGET(input, SAMPLER, (int2)(in_w_idx0, in_hb));
    in2 = READ_IMAGET(input, SAMPLER, (int2)(in_w_idx1, in_hb));
    in3 = READ_IMAGET(input, SAMPLER, (int2)(in_w_idx2, in_hb));

    for (short filter_w_idx = 0; filter_w_idx < filter_width; ++filter_w_idx) {
      in0 = in1;
      in1 = in2;
      in2 = in3;

      in_w = in_width3 + filter_w_idx;
      in_w = select(in_idx + in_w,
                    -1,
                    (in_w < 0 || in_w >= in_width));
      in3 = READ_IMAGET(input, SAMPLER, (int2)(in_w, in_hb));

      DATA_TYPE4 weights = READ_IMAGET(filter, SAMPLER,
                                       (int2)(filter_idx, in_ch_blk));

      out0 = mad(in0, weights, out0);
      out1 = mad(in1, weights, out1);
      out2 = mad(in2, weights, out2);
      out3 = mad(in3, weights, out3);
      ++filter_idx;
    }
    in_hb_idx += 1;
  }

#if  defined(USE_RELU) || defined(USE_LEAKYRELU) || defined(USE_RELUX) || defined(USE_TANH) || defined(USE_SIGMOID) || defined(USE_ELU)
  out0 = do_activation(out0, relux_max_limit, activation_coefficient);
  out1 = do_activation(out1, relux_max_limit, activation_coefficient);
  out2 = do_activation(out2, relux_max_limit, activation_coefficient);
  out3 = do_activation(out3, relux_max_limit, activation_coefficient);
#endif

  const short out_x_base = mul24(out_ch_blk, out_width);
  short w = out_w_blk;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out0);

  w += 1;
  if (w >= out_width) return;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out1);

  w += 1;
  if (w >= out_width) return;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out2);

  w += 1;
  if (w >= out_width) return;
  WRITE_IMAGET(output, (int2)(out_x_base + w, out_hb), out3);
}
// ---- end mace/ops/opencl/cl/depthwise_conv2d.cl ----
