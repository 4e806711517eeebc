// Deliberately broken (header_error.cu): the error is on line 9 of THIS file.
#pragma once

__global__ void nothing() {}

inline void broken() {
  nothing<<<1,
            1>>>();
  int x = undeclared_in_header;
  (void)x;
}
