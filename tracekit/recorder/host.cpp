// tracekit launch host: runs one kernel launch described in a small text file
// through the OpenCL API.  `tracekit record KERNEL.cl ...` writes the file and
// runs this program under `oclgrind`, so the kernel executes on Oclgrind's
// simulated device with the recorder plugin loaded.
//
// Description file, one item per line (paths and option strings last):
//   source PATH | options TEXT | kernel NAME | dims N
//   global X Y Z | local X Y Z (0 0 0: let the runtime choose)
//   arg buffer TYPE NBYTES PATH|-      (- : zero-filled)
//   arg scalar TYPE NBYTES HEXBYTES
//   arg local NBYTES
//   arg image ORDER TYPE IMAGE-TYPE W H D NBYTES PATH|-   (rgba float image2d 64 64 1 ...)
//   arg sampler ADDRESSING FILTER normalized|unnormalized
//
// Problems the user can fix are printed as one line starting with
// "TRACEKIT-ERROR <kind>:" (kinds: build, kernel, args, launch, local_memory, work_group,
// input),
// followed by detail lines, and exit with status 3.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct Arg
{
  std::string kind, type, path, hex;
  size_t bytes = 0;
  std::string order, itype, addressing, filter, coords;  // images and samplers
  size_t dims[3] = {1, 1, 1};
};

struct Launch
{
  std::string source, options, kernel;
  unsigned dims = 1;
  size_t global[3] = {1, 1, 1}, local[3] = {0, 0, 0};
  std::vector<Arg> args;
};

[[noreturn]] static void fail(const char* kind, const std::string& message, const std::string& detail = "")
{
  fprintf(stderr, "TRACEKIT-ERROR %s: %s\n", kind, message.c_str());
  if (!detail.empty())
    fprintf(stderr, "%s\n", detail.c_str());
  exit(3);
}

static void check(cl_int err, const char* what)
{
  if (err != CL_SUCCESS)
    fail("launch", std::string(what) + " failed with OpenCL error " + std::to_string(err));
}

static std::string readFile(const std::string& path)
{
  std::ifstream f(path, std::ios::binary);
  if (!f)
    fail("input", "cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

static Launch parse(const std::string& path)
{
  Launch L;
  std::istringstream in(readFile(path));
  std::string line;
  while (std::getline(in, line))
  {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    auto rest = [&]() {
      std::string r;
      std::getline(ls, r);
      size_t p = r.find_first_not_of(' ');
      return p == std::string::npos ? std::string() : r.substr(p);
    };
    if (key == "source")
      L.source = rest();
    else if (key == "options")
      L.options = rest();
    else if (key == "kernel")
      L.kernel = rest();
    else if (key == "dims")
      ls >> L.dims;
    else if (key == "global")
      ls >> L.global[0] >> L.global[1] >> L.global[2];
    else if (key == "local")
      ls >> L.local[0] >> L.local[1] >> L.local[2];
    else if (key == "arg")
    {
      Arg a;
      ls >> a.kind;
      if (a.kind == "local")
        ls >> a.bytes;
      else if (a.kind == "scalar")
        ls >> a.type >> a.bytes >> a.hex;
      else if (a.kind == "sampler")
        ls >> a.addressing >> a.filter >> a.coords;
      else if (a.kind == "image")
      {
        ls >> a.order >> a.type >> a.itype >> a.dims[0] >> a.dims[1] >> a.dims[2] >> a.bytes;
        a.path = rest();
      }
      else
      {
        ls >> a.type >> a.bytes;
        a.path = rest();
      }
      L.args.push_back(a);
    }
  }
  return L;
}

static std::string kernelArgText(cl_kernel k, cl_uint i, cl_kernel_arg_address_qualifier* aq,
                                 std::string* type)
{
  char name[256] = "?", tname[256] = "?";
  *aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(*aq), aq, NULL);
  clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL);
  clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(tname), tname, NULL);
  *type = tname;
  const char* q = *aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "__global "
                  : *aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "__constant "
                  : *aq == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "__local "
                                                          : "";
  return std::string(q) + tname + " " + name;
}

static std::string signature(cl_kernel k, cl_uint n)
{
  std::string s;
  for (cl_uint i = 0; i < n; i++)
  {
    cl_kernel_arg_address_qualifier aq;
    std::string t;
    s += (i ? ", " : "") + kernelArgText(k, i, &aq, &t);
  }
  return s;
}

static const char* KNOWN[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                              "half", "float", "double", NULL};

// True if ``t`` is a built-in scalar or vector type name (float, uint4 ...).
static bool known(const std::string& t)
{
  for (const char** k = KNOWN; *k; k++)
  {
    size_t n = strlen(*k);
    if (t.compare(0, n, *k) == 0)
    {
      std::string w = t.substr(n);
      if (w.empty() || w == "2" || w == "3" || w == "4" || w == "8" || w == "16")
        return true;
    }
  }
  return false;
}

// OpenCL's enum for a channel order / channel type / addressing mode named as
// tracekit/recorder/argspec_images.py writes them; 0 when unknown.
static cl_uint clEnum(const std::string& name)
{
  static const struct { const char* name; cl_uint value; } table[] = {
    {"r", CL_R}, {"a", CL_A}, {"rg", CL_RG}, {"ra", CL_RA}, {"rgb", CL_RGB}, {"rgba", CL_RGBA},
    {"bgra", CL_BGRA}, {"argb", CL_ARGB}, {"intensity", CL_INTENSITY}, {"luminance", CL_LUMINANCE},
    {"rx", CL_Rx}, {"rgx", CL_RGx}, {"rgbx", CL_RGBx},
    {"snorm_int8", CL_SNORM_INT8}, {"snorm_int16", CL_SNORM_INT16}, {"unorm_int8", CL_UNORM_INT8},
    {"unorm_int16", CL_UNORM_INT16}, {"signed_int8", CL_SIGNED_INT8}, {"signed_int16", CL_SIGNED_INT16},
    {"signed_int32", CL_SIGNED_INT32}, {"unsigned_int8", CL_UNSIGNED_INT8},
    {"unsigned_int16", CL_UNSIGNED_INT16}, {"unsigned_int32", CL_UNSIGNED_INT32},
    {"half_float", CL_HALF_FLOAT}, {"float", CL_FLOAT},
    {"none", CL_ADDRESS_NONE}, {"clamp_to_edge", CL_ADDRESS_CLAMP_TO_EDGE}, {"clamp", CL_ADDRESS_CLAMP},
    {"repeat", CL_ADDRESS_REPEAT}, {"mirrored_repeat", CL_ADDRESS_MIRRORED_REPEAT},
    {"nearest", CL_FILTER_NEAREST}, {"linear", CL_FILTER_LINEAR},
  };
  for (const auto& e : table)
    if (name == e.name)
      return e.value;
  return 0;
}

static std::vector<unsigned char> unhex(const std::string& h)
{
  std::vector<unsigned char> out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back((unsigned char)strtoul(h.substr(i, 2).c_str(), NULL, 16));
  return out;
}

// Why the device refused the launch, from what it and the kernel report: the local
// memory the kernel needs against the device's, the work-group size against both
// limits, and the global size against the work-group size.  Kinds "local_memory" and
// "work_group" let the recorder add the hint that fits.
[[noreturn]] static void refused(const Launch& L, cl_kernel kernel, cl_device_id device, cl_int err)
{
  const std::string head = "the launch of '" + L.kernel + "' was refused (OpenCL error " + std::to_string(err) + "): ";
  cl_ulong need = 0, have = 0;
  size_t kernelMax = 0, deviceMax = 0;
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(need), &need, NULL);
  clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(have), &have, NULL);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kernelMax), &kernelMax, NULL);
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(deviceMax), &deviceMax, NULL);
  if (have && need > have)
    fail("local_memory", head + "the kernel needs " + std::to_string(need) +
                             " bytes of local memory per work-group (its __local arrays and local: arguments), "
                             "more than the simulated device's " + std::to_string(have) + " bytes");
  size_t items = 1;
  for (unsigned d = 0; d < L.dims && L.local[0]; d++)
  {
    items *= L.local[d];
    if (L.global[d] % L.local[d])
      fail("work_group", head + "--global " + std::to_string(L.global[d]) + " is not a multiple of --local " +
                         std::to_string(L.local[d]) + " in dimension " + std::to_string(d));
  }
  size_t limit = kernelMax && deviceMax ? std::min(kernelMax, deviceMax) : (kernelMax ? kernelMax : deviceMax);
  if (L.local[0] && limit && items > limit)
    fail("work_group", head + "a work-group of " + std::to_string(items) + " work-items is more than the " +
                       std::to_string(limit) + " the device runs for this kernel");
  fail("launch", head + "neither its local memory (" + std::to_string(need) + " of " + std::to_string(have) +
                     " bytes) nor its sizes explain it");
}

int main(int argc, char** argv)
{
  if (argc != 2)
  {
    fprintf(stderr, "usage: %s LAUNCH-DESCRIPTION\n", argv[0]);
    return 2;
  }
  Launch L = parse(argv[1]);
  std::string src = readFile(L.source);

  cl_platform_id platform;
  cl_uint np = 0;
  if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0)
    fail("launch", "no OpenCL platform found (is the program running under oclgrind?)");
  cl_device_id device;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
  check(err, "clCreateCommandQueue");

  const char* text = src.c_str();
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(prog, 1, &device, L.options.c_str(), NULL, NULL) != CL_SUCCESS)
  {
    size_t n = 0;
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, &log[0], NULL);
    fail("build", L.source + " does not compile (options: '" + L.options + "')", log.c_str());
  }

  cl_kernel kernel = clCreateKernel(prog, L.kernel.c_str(), &err);
  if (err != CL_SUCCESS)
  {
    char names[4096] = "";
    clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL);
    // The program may hold the kernel and the runtime still refuse it (Oclgrind cannot
    // run something in it, and says what on stderr): say which of the two happened.
    std::string list = std::string(";") + names + ";";
    if (list.find(";" + L.kernel + ";") != std::string::npos)
      fail("kernel", "Oclgrind could not create kernel '" + L.kernel + "' from " + L.source +
                         " (OpenCL error " + std::to_string(err) + ")");
    fail("kernel", "no kernel named '" + L.kernel + "' in " + L.source + "; kernels there: " + names);
  }

  cl_uint nargs = 0;
  check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), "clGetKernelInfo");
  if (nargs != L.args.size())
    fail("args", "kernel '" + L.kernel + "' takes " + std::to_string(nargs) + " argument(s) but " +
                   std::to_string(L.args.size()) + " --arg given",
         "  signature: " + L.kernel + "(" + signature(kernel, nargs) + ")");

  std::vector<cl_mem> buffers;
  std::vector<cl_sampler> samplers;
  for (cl_uint i = 0; i < nargs; i++)
  {
    const Arg& a = L.args[i];
    cl_kernel_arg_address_qualifier aq;
    std::string ktype;
    std::string desc = kernelArgText(kernel, i, &aq, &ktype);
    std::string where = "argument " + std::to_string(i) + " (" + desc + ")";
    bool isPtr = !ktype.empty() && ktype.back() == '*';
    std::string base = isPtr ? ktype.substr(0, ktype.size() - 1) : ktype;
    bool isImage = ktype.rfind("image", 0) == 0;
    if (isImage && a.kind != "image")
      fail("args", where + " is an image, but --arg " + std::to_string(i) + " gives a " + a.kind +
                     "; give img:ORDER:TYPE:W,H[=INIT]");
    if (ktype == "sampler_t" && a.kind != "sampler")
      fail("args", where + " is a sampler, but --arg " + std::to_string(i) + " gives a " + a.kind +
                     "; give sampler:ADDRESSING,FILTER");
    if (a.kind == "image")
    {
      std::string want = a.itype + "_t";
      if (ktype != want)
        fail("args", where + (isImage ? " is an " + ktype : std::string(" is not an image")) + ", but --arg " +
                       std::to_string(i) + " gives an " + a.itype + " (" + std::to_string(a.dims[0]) + "x" +
                       std::to_string(a.dims[1]) + "x" + std::to_string(a.dims[2]) + ")");
      cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
      clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(access), &access, NULL);
      cl_mem_flags flags = access == CL_KERNEL_ARG_ACCESS_READ_ONLY    ? CL_MEM_READ_ONLY
                           : access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY ? CL_MEM_WRITE_ONLY
                                                                       : CL_MEM_READ_WRITE;
      std::vector<unsigned char> data(a.bytes, 0);
      if (a.path != "-")
      {
        std::string raw = readFile(a.path);
        if (raw.size() != a.bytes)
          fail("input", "initial data file " + a.path + " has " + std::to_string(raw.size()) +
                          " bytes, expected " + std::to_string(a.bytes));
        memcpy(data.data(), raw.data(), a.bytes);
      }
      cl_image_format format = {clEnum(a.order), clEnum(a.type)};
      cl_image_desc desc;
      memset(&desc, 0, sizeof(desc));
      desc.image_type = a.itype == "image1d"   ? CL_MEM_OBJECT_IMAGE1D
                        : a.itype == "image3d" ? CL_MEM_OBJECT_IMAGE3D
                                               : CL_MEM_OBJECT_IMAGE2D;
      desc.image_width = a.dims[0];
      desc.image_height = a.dims[1];
      desc.image_depth = a.dims[2];
      cl_mem m = clCreateImage(ctx, flags | CL_MEM_COPY_HOST_PTR, &format, &desc, data.data(), &err);
      if (err != CL_SUCCESS)
        fail("args", "cannot create the image of " + where + " (" + a.order + ":" + a.type + ", " +
                       std::to_string(a.dims[0]) + "x" + std::to_string(a.dims[1]) + "x" +
                       std::to_string(a.dims[2]) + "): OpenCL error " + std::to_string(err));
      buffers.push_back(m);
      check(clSetKernelArg(kernel, i, sizeof(cl_mem), &m), "clSetKernelArg");
    }
    else if (a.kind == "sampler")
    {
      if (ktype != "sampler_t")
        fail("args", where + " is not a sampler, but --arg " + std::to_string(i) + " gives a sampler");
      cl_sampler smp = clCreateSampler(ctx, a.coords == "normalized" ? CL_TRUE : CL_FALSE,
                                       clEnum(a.addressing), clEnum(a.filter), &err);
      check(err, "clCreateSampler");
      samplers.push_back(smp);
      check(clSetKernelArg(kernel, i, sizeof(cl_sampler), &smp), "clSetKernelArg");
    }
    else if (a.kind == "buffer")
    {
      if (aq != CL_KERNEL_ARG_ADDRESS_GLOBAL && aq != CL_KERNEL_ARG_ADDRESS_CONSTANT)
        fail("args", where + " is not a __global or __constant pointer, but --arg " + std::to_string(i) +
                       " gives a buffer");
      if (known(base) && base != a.type)
        fail("args", where + " points to " + base + ", but --arg " + std::to_string(i) + " gives " + a.type +
                       " elements");
      std::vector<unsigned char> data(a.bytes, 0);
      if (a.path != "-")
      {
        std::string raw = readFile(a.path);
        if (raw.size() != a.bytes)
          fail("input", "initial data file " + a.path + " has " + std::to_string(raw.size()) +
                          " bytes, expected " + std::to_string(a.bytes));
        memcpy(data.data(), raw.data(), a.bytes);
      }
      cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a.bytes ? a.bytes : 1,
                                data.data(), &err);
      check(err, "clCreateBuffer");
      buffers.push_back(m);
      check(clSetKernelArg(kernel, i, sizeof(cl_mem), &m), "clSetKernelArg");
    }
    else if (a.kind == "local")
    {
      if (aq != CL_KERNEL_ARG_ADDRESS_LOCAL)
        fail("args", where + " is not a __local pointer, but --arg " + std::to_string(i) +
                       " gives local memory");
      check(clSetKernelArg(kernel, i, a.bytes, NULL), "clSetKernelArg");
    }
    else
    {
      if (aq != CL_KERNEL_ARG_ADDRESS_PRIVATE || isPtr)
        fail("args", where + " is a pointer, but --arg " + std::to_string(i) + " gives a " + a.type +
                       " scalar");
      if (known(ktype) && ktype != a.type)
        fail("args", where + " is " + ktype + ", but --arg " + std::to_string(i) + " gives " + a.type);
      std::vector<unsigned char> v = unhex(a.hex);
      if (clSetKernelArg(kernel, i, v.size(), v.data()) != CL_SUCCESS)
        fail("args", where + " does not accept a " + std::to_string(v.size()) + "-byte value");
    }
  }

  const size_t* local = (L.local[0] == 0) ? NULL : L.local;
  err = clEnqueueNDRangeKernel(queue, kernel, L.dims, NULL, L.global, local, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    refused(L, kernel, device, err);
  check(clFinish(queue), "clFinish");

  for (cl_mem m : buffers)
    clReleaseMemObject(m);
  for (cl_sampler smp : samplers)
    clReleaseSampler(smp);
  clReleaseKernel(kernel);
  clReleaseProgram(prog);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return 0;
}
