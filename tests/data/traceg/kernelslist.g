MemcpyHtoD,0x00007f2a40000000,512
kernel-1.traceg
