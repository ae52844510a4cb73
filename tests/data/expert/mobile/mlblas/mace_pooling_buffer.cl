// tracekit expert-review test data (tests/data/expert/mobile/mlblas): case mace_pooling_buffer
//
// Origin: github.com/XiaoMi/mace, commit 0fc55a548ef41b37fd15fd8944de5155eb09b3c1
//   mace/ops/opencl/cl/pooling_buffer.cl (last changed in 4ab4c17e69214b20dac1cc0f737e8315f715a582) with
//   mace/ops/opencl/cl/common.h inlined at its #include.
//   (upstream has mace/ops/opencl/cl/pooling_buffer.cl at 4ab4c17e69214b20dac1cc0f737e8315f715a582)
// Licence: MACE is released under the Apache License, Version 2.0 (LICENSE in the MACE
//   repository; the licence header of common.h is kept verbatim below). Its kernel .cl files
//   carry no header of their own.
//
// Kernel recorded: pooling (NHWC buffer, MAX), float32.
// Build options (mace/ops/opencl/buffer/pooling.cc, opencl_executor.cc BuildProgram):
//   -Dpooling=pooling -DIN_DATA_TYPE=float -DOUT_DATA_TYPE=float -DDATA_TYPE=float
//   -DNON_UNIFORM_WORK_GROUP  -Werror -cl-mad-enable -cl-fast-relaxed-math

// ---- begin mace/ops/opencl/cl/pooling_buffer.cl (MACE, last changed in 4ab4c17e6921) ----
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

#define MIN_VALUE -FLT_MAX

inline int calculate_avg_block_size(const int pool_size_h,
                                    const int pool_size_w,
                                    const int pos_h,
                                    const int pos_w,
                                    const int h_size,
                                    const int w_size) {
  const int h_start = max(0, pos_h);
  const int w_start = max(0, pos_w);
  const int h_end = min(pos_h + pool_size_h, h_size);
  const int w_end = min(pos_w + pool_size_w, w_size);
  return mul24((h_end - h_start), (w_end - w_start));
}

// Supported data type: half/float
__kernel void pooling(BUFFER_OUT_OF_RANGE_PARAMS
                      GLOBAL_WORK_GROUP_SIZE_DIM3
                      __global IN_DATA_TYPE *input,
                      __private const int in_height,
                      __private const int in_width,
                      __private const int in_chan,
                      __private const int out_height,
                      __private const int out_chan,
                      __private const int pad_top,
                      __private const int pad_left,
                      __private const int stride_h,
                      __private const int stride_w,
                      __private const int kernel_h,
                      __private const int kernel_w,
                      __global OUT_DATA_TYPE *output) {

  const int out_chan_blk_idx = get_global_id(0);
  const int out_width_idx = get_global_id(1);
  const int out_hb_idx = get_global_id(2);

#ifndef NON_UNIFORM_WORK_GROUP
  if (out_chan_blk_idx >= global_size_dim0 ||
      out_width_idx >= global_size_dim1 ||
      out_hb_idx >= global_size_dim2) {
    return;
  }
#endif
  const int out_width = global_size_dim1;
  const int in_wc_size = mul24(in_width, in_chan);

  const int batch_idx = out_hb_idx / out_height;
  const int out_height_idx = out_hb_idx - mul24(batch_idx, out_height);
  const int chan_idx = out_chan_blk_idx << 2;
  const int in_height_start = mul24(out_height_idx, stride_h) - pad_top;
  const int in_width_start = mul24(out_width_idx, stride_w) - pad_left;
  int in_offset_base = mad24(mad24(mad24(batch_idx, in_height, in_height_start),
      in_width, in_width_start), in_chan, chan_idx);

#ifdef POOL_AVG
  DATA_TYPE4 res = 0;
  for (int height = 0; height < kernel_h; ++height) {
    int in_height_idx = in_height_start + height;
    if (0 <= in_height_idx && in_height_idx < in_height) {
      int in_offset = mad24(height, in_wc_size, in_offset_base);
      for (int width = 0; width < kernel_w; ++width) {
        int in_width_idx = in_width_start + width;
        if (0 <= in_width_idx && in_width_idx < in_width) {
          DATA_TYPE4 in = CONVERT4(vload4(0, input + in_offset));
          res = res + in;
        }
        in_offset += in_chan;
      }
    }
  }
  const int block_size = calculate_avg_block_size(kernel_h,
                                                  kernel_w,
                                                  in_height_start,
                                                  in_width_start,
                                                  in_height,
                                                  in_width);
  res /= block_size;
#else
  DATA_TYPE4 res = (DATA_TYPE4)(MIN_VALUE);
  for (int height = 0; height < kernel_h; ++height) {
    int in_height_idx = in_height_start + height;
    if (0 <= in_height_idx && in_height_idx < in_height) {
      int in_offset = mad24(height, in_wc_size, in_offset_base);
      for (int width = 0; width < kernel_w; ++width) {
        int in_width_idx = in_width_start + width;
        if (0 <= in_width_idx && in_width_idx < in_width) {
          DATA_TYPE4 in = CONVERT4(vload4(0, input + in_offset));
          res = fmax(res, in);
        }
        in_offset += in_chan;
      }
    }
  }
#endif

  const int out_offset = mad24(mad24(mad24(batch_idx, out_height, out_height_idx),
      out_width, out_width_idx), out_chan, chan_idx);
  int remain_chan = out_chan - chan_idx;
  if (remain_chan < 4) {
    switch(remain_chan) {
      case 3:
        output[out_offset + 2] = res.z;
      case 2:
        output[out_offset + 1] = res.y;
      case 1:
        output[out_offset] = res.x;
    }
    CHECK_OUT_OF_RANGE_FOR_BUFFER(out_offset + remain_chan - 1);
  } else {
    VSTORE4(CONVERT_TO(res, OUT_DATA_TYPE4), output, out_offset);
  }
}
// ---- end mace/ops/opencl/cl/pooling_buffer.cl ----
