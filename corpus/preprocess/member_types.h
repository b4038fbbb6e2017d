// Member types: a missing type whose values the text uses with `.m` or `->m`
// is a struct the host supplies (arrayfire's `KParam` with `dims[4]`,
// `strides[4]`, `offset`), or a vector when every member is a lane (`.x`,
// `.y`). Defining it as `float` would only trade "unknown type name" for
// "member reference base type 'float' is not a structure". Free of Clang types.
#pragma once

#include <string>
#include <string_view>

namespace clgen::preprocess {

// The definition of missing type `name` from the members the text uses on
// variables declared with it (`name v`, `name* v`, `const name v`, ...),
// or "" when it uses none:
//  - only lanes (`x`, `zw`, `s7`, `lo`, ...): `#define name floatN`, N the
//    smallest vector width holding them (2 for x and y, 4 with z or w);
//  - otherwise `typedef struct { ... } name;` with one `int` member per name
//    used, an array `int m[4]` for a member the text subscripts (sizes and
//    strides: host structs of kernel geometry hold counts, and an int can
//    offset a pointer where a float cannot).
std::string member_type_definition(std::string_view text, std::string_view name);

}  // namespace clgen::preprocess
