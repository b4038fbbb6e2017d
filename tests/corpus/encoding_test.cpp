// Windows-1252 bytes in comments and literals are read and stored as UTF-8;
// such bytes in code are refused with their place.
#include <gtest/gtest.h>

#include "corpus/encoding.h"
#include "support/utf8.h"

namespace clgen::corpus {
namespace {

TEST(Encoding, ReadsStrayBytesAsWindows1252) {
  EXPECT_EQ(windows1252_to_utf8("\xA9"), "\xC2\xA9");                                // © is U+00A9 in Latin-1 and 1252
  EXPECT_EQ(windows1252_to_utf8("\x80"), "\xE2\x82\xAC");                            // 1252 0x80 is € U+20AC
  EXPECT_EQ(windows1252_to_utf8("\x93x\x94"), "\xE2\x80\x9Cx\xE2\x80\x9D");          // curly quotes U+201C/U+201D
  EXPECT_EQ(windows1252_to_utf8("\x81"), "\xC2\x81");                                // unmapped in 1252: Latin-1 U+0081
  EXPECT_EQ(windows1252_to_utf8("caf\xC3\xA9 caf\xE9"), "caf\xC3\xA9 caf\xC3\xA9");  // UTF-8 kept, 0xE9 read
}

TEST(Encoding, KeepsValidUtf8ByteOrderMarkAndLineEnds) {
  const std::string text = "\xEF\xBB\xBF// \xC2\xA9\r\nkernel void k() {}\r\n";
  Utf8Text r = c_source_as_utf8(text);
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.transcoded, 0);
  EXPECT_EQ(r.text, text);
}

TEST(Encoding, TranscodesLatin1InCommentsAndLiterals) {
  Utf8Text r = c_source_as_utf8("/* \xA9 2012 M\xFCller */\n// \xB5s\nkernel void k() { printf(\"\xB0\"); }\n");
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.transcoded, 4);  // ©, ü, µ, °
  EXPECT_EQ(r.text, "/* \xC2\xA9 2012 M\xC3\xBCller */\n// \xC2\xB5s\nkernel void k() { printf(\"\xC2\xB0\"); }\n");
  EXPECT_TRUE(is_valid_utf8(r.text));
}

TEST(Encoding, RefusesInvalidBytesInCodeNamingByteAndLine) {
  Utf8Text r = c_source_as_utf8("// fine \xA9\nkernel void k\xE9() {}\n");
  EXPECT_EQ(r.problem, "byte 0xE9 outside comments and literals at line 2");
  // A literal ends at its line's end: the byte after it is code again.
  EXPECT_EQ(c_source_as_utf8("char* s = \"open\n\xA9;").problem, "byte 0xA9 outside comments and literals at line 2");
  // A backslash-newline continues a line comment onto the next line.
  EXPECT_EQ(c_source_as_utf8("// a \\\n\xA9\nint x;").problem, "");
}

}  // namespace
}  // namespace clgen::corpus
