__kernel void A(__global char* a, const int b) {
  /* A comment with "quotes", braces { } and tabs	here. */
  int c = get_global_id(0);
  if (c < b && a[c] == '\n') {
    a[c] = ' ';
  }
}
