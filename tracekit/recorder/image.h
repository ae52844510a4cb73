// Images for the tracekit recorder plugin: which sites read or write an image,
// what the launch's image arguments are, and the sampler of a read.
//
// Oclgrind runs read_image* and write_image* as builtins that load an image
// channel by channel through the global Memory (a linear filter reads every
// texel of its footprint once per channel, border texels not at all) and store
// a whole texel at once.  The plugin sees those loads and stores through
// memoryLoad/memoryStore while the call is the current instruction; it folds
// them into one row per texel of each call (plugin.cpp, imageTexel).
#pragma once

#include <string>

// Oclgrind's headers have no include guards: the includer brings in
// oclgrind/common.h, Kernel.h and WorkItem.h first (plugin.cpp does).
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include "opclass.h"
#include "stream.h"

namespace tracekit
{

// Values of the per-site space table (Recorder::m_siteSpace) for image builtin
// calls, above every LLVM address-space number the table otherwise holds.
static const uint8_t SITE_IMAGE_READ = 0xF0;
static const uint8_t SITE_IMAGE_WRITE = 0xF1;

// SITE_IMAGE_READ / SITE_IMAGE_WRITE for a call to read_image* / write_image*, else 0.
inline uint8_t imageSiteKind(const llvm::Instruction* inst)
{
  const llvm::CallInst* call = llvm::dyn_cast<llvm::CallInst>(inst);
  const llvm::Function* f = call ? call->getCalledFunction() : nullptr;
  if (!f || !f->isDeclaration())
    return 0;
  std::string name = builtinName(f->getName().str());
  if (startsWith(name, "read_image"))
    return SITE_IMAGE_READ;
  if (startsWith(name, "write_image"))
    return SITE_IMAGE_WRITE;
  return 0;
}

// An image argument of the running launch: its buffer and its texel size.
struct ImageArg
{
  uint32_t buffer = 0;
  uint32_t texelBytes = 0;
};

inline bool isImageType(const std::string& typeName)
{
  return startsWith(typeName, "image") || typeName.find(" image") != std::string::npos;
}

inline const char* channelOrderName(cl_channel_order o)
{
  switch (o)
  {
  case CL_R: return "r";
  case CL_A: return "a";
  case CL_RG: return "rg";
  case CL_RA: return "ra";
  case CL_RGB: return "rgb";
  case CL_RGBA: return "rgba";
  case CL_BGRA: return "bgra";
  case CL_ARGB: return "argb";
  case CL_INTENSITY: return "intensity";
  case CL_LUMINANCE: return "luminance";
  case CL_Rx: return "rx";
  case CL_RGx: return "rgx";
  case CL_RGBx: return "rgbx";
  default: return "unknown";
  }
}

inline unsigned channelCount(cl_channel_order o)
{
  switch (o)
  {
  case CL_RG: case CL_RGx: case CL_RA: return 2;
  case CL_RGB: case CL_RGBx: return 3;
  case CL_RGBA: case CL_ARGB: case CL_BGRA: return 4;
  default: return 1;
  }
}

inline const char* channelTypeName(cl_channel_type t)
{
  switch (t)
  {
  case CL_SNORM_INT8: return "snorm_int8";
  case CL_SNORM_INT16: return "snorm_int16";
  case CL_UNORM_INT8: return "unorm_int8";
  case CL_UNORM_INT16: return "unorm_int16";
  case CL_SIGNED_INT8: return "signed_int8";
  case CL_SIGNED_INT16: return "signed_int16";
  case CL_SIGNED_INT32: return "signed_int32";
  case CL_UNSIGNED_INT8: return "unsigned_int8";
  case CL_UNSIGNED_INT16: return "unsigned_int16";
  case CL_UNSIGNED_INT32: return "unsigned_int32";
  case CL_HALF_FLOAT: return "half_float";
  case CL_FLOAT: return "float";
  default: return "unknown";
  }
}

inline unsigned channelBytes(cl_channel_type t)
{
  switch (t)
  {
  case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
  case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
  case CL_HALF_FLOAT: return 2;
  default: return 4;
  }
}

inline const char* imageTypeName(cl_mem_object_type t)
{
  switch (t)
  {
  case CL_MEM_OBJECT_IMAGE1D: return "image1d";
  case CL_MEM_OBJECT_IMAGE1D_BUFFER: return "image1d_buffer";
  case CL_MEM_OBJECT_IMAGE1D_ARRAY: return "image1d_array";
  case CL_MEM_OBJECT_IMAGE2D: return "image2d";
  case CL_MEM_OBJECT_IMAGE2D_ARRAY: return "image2d_array";
  case CL_MEM_OBJECT_IMAGE3D: return "image3d";
  default: return "unknown";
  }
}

inline const char* accessName(unsigned q)
{
  switch (q)
  {
  case CL_KERNEL_ARG_ACCESS_READ_ONLY: return "read_only";
  case CL_KERNEL_ARG_ACCESS_WRITE_ONLY: return "write_only";
  case CL_KERNEL_ARG_ACCESS_READ_WRITE: return "read_write";
  default: return "none";
  }
}

inline uint32_t texelBytes(const oclgrind::Image* img)
{
  return channelCount(img->format.image_channel_order) * channelBytes(img->format.image_channel_data_type);
}

// The JSON object describing an image argument (launch JSON, "image" of an arg).
inline std::string imageJson(const oclgrind::Image* img, uint64_t buffer, unsigned access)
{
  return std::string("{\"buffer\":") + std::to_string(buffer) + ",\"type\":\"" +
         imageTypeName(img->desc.image_type) + "\",\"width\":" + std::to_string(img->desc.image_width) +
         ",\"height\":" + std::to_string(img->desc.image_height) +
         ",\"depth\":" + std::to_string(img->desc.image_depth) +
         ",\"array_size\":" + std::to_string(img->desc.image_array_size) + ",\"channel_order\":\"" +
         channelOrderName(img->format.image_channel_order) + "\",\"channel_type\":\"" +
         channelTypeName(img->format.image_channel_data_type) + "\",\"element_size\":" +
         std::to_string(texelBytes(img)) + ",\"access\":\"" + accessName(access) + "\"}";
}

// The sampler of the read being executed, as stream.h writes it into bits 16-23
// of an image row's buffer: IMAGE_SAMPLER_SET | Oclgrind's sampler bits.  A read
// without a sampler behaves as unnormalised coordinates, no addressing, nearest.
// Oclgrind holds a sampler value as a pointer to the llvm::ConstantInt of its bits.
inline uint32_t samplerOf(const oclgrind::WorkItem* wi, const llvm::Instruction* inst)
{
  const llvm::CallInst* call = llvm::dyn_cast_or_null<llvm::CallInst>(inst);
  uint32_t bits = CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
  if (call && call->arg_size() > 2)
  {
    const llvm::ConstantInt* c = (const llvm::ConstantInt*)wi->getOperand(call->getArgOperand(1)).getPointer();
    if (c)
      bits = (uint32_t)c->getZExtValue();
  }
  return IMAGE_SAMPLER_SET | (bits & 0x3F);
}

} // namespace tracekit
