// Compile error: an undeclared identifier.
kernel void compile_error(global float* data) {
  data[get_global_id(0)] = undeclared_value;
}
