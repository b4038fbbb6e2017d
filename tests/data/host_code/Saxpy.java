public class Saxpy {
  static final String SOURCE =
      "__kernel void saxpy(float a, __global const float* x,\n"
      + "                    __global float* y) {\n"
      + "  int i = get_global_id(0);\n"
      + "  y[i] += a * x[i];\n"
      + "}\n";
  static final String NOTE = "Each __kernel runs once per work-item.";
  public static void main(String[] args) { System.out.println("kernel " + args.length); }
}
