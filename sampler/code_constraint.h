// Constrained decoding: keeps a sampled kernel a possible prefix of a
// normalized kernel, token by token. Brackets must match; comments and
// preprocessor lines cannot start; an identifier must be a word of the
// training corpus or one of the rewriter's generated names (a, b, ..., A, B,
// ...) that is declared and in scope, or the next fresh name where a
// declaration can start; names carry a kind from their declaration (scalar,
// float, vector, pointer, array) that limits the operators after them, and
// expressions carry a context (a subscript takes integers, the value of an
// arithmetic variable takes no bare pointer, a floating-point builtin needs a
// floating-point operand) that limits the names and literals in them. Each
// rule only removes text that cannot compile (or that the rewriter never
// produces), so the sampler draws from the model's distribution renormalized
// over the continuations that remain possible. docs/SAMPLER.md lists the
// rules.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "sampler/constraint_tables.h"

namespace clgen::sampler {

// The constraint state of one stream of text. The state is a handful of
// small structs, one per concern, plus the stack of open brackets: what
// accepts() copies for a multi-character piece is exactly these members.
// The rules live in one file per concern: code_constraint.cpp (lexing and
// layout), constraint_names.cpp (scopes and names), constraint_expressions.cpp
// (expressions), constraint_statements.cpp (statements and brackets),
// constraint_calls.cpp (calls and types).
class CodeConstraint {
 public:
  explicit CodeConstraint(const ConstraintTables* tables);

  // Whether appending `piece` keeps the text a possible prefix.
  bool accepts(std::string_view piece) const;
  // Whether the text may end here (the model's end token): nothing open.
  bool can_end() const { return open_.empty() && lex_.mode == Mode::kCode; }
  // Appends `piece` (also text that breaks a rule, e.g. the seed: the state
  // then follows it as well as it can).
  void feed(std::string_view piece);

 private:
  enum class Mode { kCode, kWord, kNumber, kString, kChar, kDirective };
  // The value class of an operand: what an expression context checks.
  enum class Cls : uint8_t { kNone, kInt, kFloat, kPtr, kUnknown };
  // What an expression context takes: anything; integers only (subscripts,
  // integer builtins); no bare pointer (the value of an arithmetic variable);
  // no bare pointer and a floating-point operand somewhere in the call (the
  // arguments of floating-point builtins, which are ambiguous for integers).
  // kImage: the first argument of an image builtin, which only an image can be.
  // kAtomic: the first argument of an atomic builtin, which must be a pointer.
  // kPointer: the value assigned to a pointer, until its first operand, which
  // must be a pointer, '&' or '(' (`float* g = a[e]` cannot compile).
  enum class Ctx : uint8_t { kAny, kInteger, kNumeric, kFloatCall, kImage, kAtomic, kPointer };

  // An open bracket and what it holds.
  struct Open {
    // A '(': a call (or a statement's header), or a group (no call).
    struct Call {
      bool group = false;         // no call: it passes operands to the one below
      bool classify = false;      // a call whose operands are classed (has_int, has_float)
      bool float_result = false;  // ... that returns a floating-point value
      bool int_result = false;    // a call that returns an integer
      bool cast = false;          // a call right after a cast: the cast's type is the result
      bool has_int = false, has_float = false;
      bool after_assign = false;  // a group right after '=' (a cast of the whole value)
      uint64_t arities = 0;       // a builtin's call: the argument counts the corpus uses (0: any)
      bool float_atomic = false;  // an atomic call that takes a float pointer (`atomic_xchg`)
      int vector_literal = 0;     // a vector literal's '(' (`(int2)(...)`): the width, which bounds its elements
      bool attribute = false;     // the '(' after `__attribute__`
    };
    // A '[': the element it reaches.
    struct Element {
      Cls cls = Cls::kUnknown;
      bool constant = false;
      int width = 0;  // vector width
    };
    // A '{'.
    struct Body {
      bool aggregate = false;  // a struct, union or enum body (or a file-level '{' not after ')')
      bool loop = false;       // a loop's (break, continue) or a switch's (break, case)
      bool is_switch = false;
      bool is_do = false;    // a `do` loop's: `while` follows it
      int extra_scopes = 0;  // `for` header scopes that end with this '{'
    };
    // The expression being written at this level (outside inner brackets):
    // whether an operator (not `*p`, `++`, `->`) has made it no lvalue, as it
    // was before the current operator, and whether it reaches memory (a
    // subscript, `*p`, `p->x`): assigning it then stores.
    struct Expression {
      bool binop = false, binop_prev = false, memory = false;
    };

    char c;                   // '(', '[' or '{'
    bool for_header = false;  // the '(' after `for`: up to two ';' inside
    char header = 0;          // the '(' of: 'f'or, 'w'hile, 's'witch, 'i'f
    int semicolons = 0;
    int ternaries = 0;  // '?' still waiting for their ':'
    int commas = 0;
    Ctx ctx = Ctx::kAny;
    Call call;
    Element elem;
    Body body;
    Expression expr;
  };

  // Lexing and layout: the literal, word or number being written and where
  // the line stands.
  struct Lexer {
    Mode mode = Mode::kCode;
    bool escaped = false;
    char last = 0;              // previous character
    char last2 = 0;             // the one before it
    int column = 0;             // characters since the last newline
    bool indenting = true;      // only spaces since the last newline
    std::string word;           // the identifier being written
    bool word_field = false;    // it follows '.' or '->'
    int word_decl = 0;          // 0: a use; 1: a declaration or a use; 2: a declaration
    int number_length = 0;      // characters of the numeric literal being written
    bool number_dot = false;    // it has a '.'
    bool number_float = false;  // it is floating-point
    bool number_hex = false;
    bool number_exp = false;  // it has an exponent
  };
  // The significant tokens (words, literals, punctuation) before the
  // current character.
  struct Tokens {
    std::string prev;                              // the last significant token
    std::string prev2;                             // the one before it
    bool prev_unary = false, prev2_unary = false;  // ... is a unary operator
    // ... continues the operator right before it (`&&`, `==`, `+=`, `->`)
    bool prev_joined = false, prev2_joined = false;
    bool prev_cmp = false, prev2_cmp = false;  // ... is the '=' of `<=` or `>=`
    bool field_next = false;                   // the last significant character was '.' or '->'
    bool tag = false;                          // after `struct`, `union` or `enum` (and its name)
    bool last_number_float = false;            // the last number written was floating-point
  };
  // What a declared generated name is, from its declaration: `[`, `.` and
  // `->` may follow only names that can take them.
  enum class Kind { kScalar, kFloat, kVector, kPointer, kArray, kOther };  // kFloat: float/double/half scalars
  struct Name {
    Kind kind;
    Cls elem;                 // scalars: their class; vectors, pointers, arrays: their elements'
    bool constant = false;    // a const scalar or vector: never assigned after its declaration
    bool const_elem = false;  // a pointer or array to const (or __constant) elements
    int width = 0;            // vector width of the value (or element): 1 for scalars, 0 unknown
    bool image = false;       // an image (image2d_t, ...)
  };
  // Scopes and names: what is declared, where, and which names come next.
  struct Names {
    std::map<std::string, Name> kinds;
    std::vector<std::vector<std::string>> scopes{{}};  // declared names per open '{' (0: file)
    std::map<std::string, int> visible;                // declared names in scope
    long max_lower = -1;                               // highest generated variable index seen
    // The fresh names a declaration may take next (the rewriter skips names
    // that a file also uses as fixed words or fields).
    std::vector<std::string> fresh;
    std::string just_declared;                      // the name the last word declared ('[' makes it an array)
    std::vector<std::string> pending_const;         // const names declared, assignable until their statement ends
    std::unordered_set<std::string> defined_types;  // struct/typedef names this text defines
    std::unordered_set<std::string> functions;      // function names seen
  };
  // Expressions: the operand just closed and the assignment being written.
  struct Expressions {
    Cls last_elem = Cls::kUnknown;      // the element class of the last closed subscript
    bool last_elem_const = false;       // ... and whether it is const
    int last_elem_width = 0;            // ... and its vector width
    int assign_width = 0;               // the vector width of the assignment's left-hand side (0: unknown)
    bool last_paren_group = false;      // the last ')' closed parentheses that are no call or header
    bool last_paren_header = false;     // ... that are a statement's header
    bool last_paren_type = false;       // ... that end with a type (a cast)
    bool cast_to_pointer = false;       // ... whose last token was '*' (`(float*)`)
    int cast_width = 0;                 // ... a cast to a vector type: its width (0: none)
    bool last_paren_attribute = false;  // ... closed `__attribute__((...))`
    std::string group_name;             // ... held one declared name alone (`(e)`): that name
    // An assignment's context: its right-hand side at depth assign_depth.
    Ctx assign_ctx = Ctx::kAny;
    int assign_depth = -1;
    Ctx saved_ctx = Ctx::kAny;  // the one a '=' replaced (restored when it becomes '==')
    int saved_depth = -1;
  };
  // Statements: the declaration being written, loop and switch bodies,
  // if-else chains.
  struct Statements {
    std::string type;                // the type of the current declaration statement
    bool constant = false;           // ... declared const
    bool const_seen = false;         // `const` (or `__constant`) in the declaration being written
    bool local = false;              // the statement in a body declares __local variables
    bool global = false;             // ... __global or __constant ones (only pointers may be)
    int decl_depth = -1;             // its bracket depth (-1: not a declaration)
    bool for_body_pending = false;   // a `for` header just closed: its body comes next
    bool loop_body_pending = false;  // a loop header (or `do`) closed: '{' opens a loop body
    bool switch_body_pending = false;
    bool do_pending = false, brace_do = false;                         // a `do` body comes next
    bool brace_for = false, brace_loop = false, brace_switch = false;  // the next '{' is such a body
    bool expect_while = false;                                         // a `do` body just closed: `while` comes next
    bool case_label = false;                                           // after `case` or `default`: its ':' may come
    std::vector<int> single_stmt_scopes;  // depths of `for` bodies without braces (their scope ends at ';')
    int single_loop_depth = -1;           // a loop body without braces, at this depth
    bool body_end_pending = false;        // such a body's statement ended; an `else` would continue it
    // `else` only right after an if-statement's body: the depth where one just
    // ended (-1: none), which statements at each depth are if-statements, and
    // whether the last token set it.
    int else_ok_depth = -1;
    std::vector<bool> if_stmt = std::vector<bool>(1, false);
    bool else_just_set = false;
  };
  // The function being declared or defined.
  struct Function {
    std::string name;  // the function being defined (OpenCL C has no recursion)
    bool returns_void = false;
    bool kernel_body = false;  // the open function body is a kernel's
    // ... and what of it survives dead-code elimination, roughly in LLVM
    // instructions: a store, printf or a call that writes 2, a barrier or a
    // statement header 1. The filter wants 3 with the `ret`: a kernel closes
    // at 2.
    int effect = 0;
    // The parameter list of a function being declared: whether the function
    // is a kernel, and whether the current parameter has an address space (it
    // must then be a pointer; a kernel's pointers must have one).
    bool in_params = false;
    bool kernel_params = false;
    bool param_space = false;
    bool param_pointer = false;  // the current parameter has a '*'
    bool saw_kernel = false;
  };

  // Lexing and layout (code_constraint.cpp).
  bool check(char c) const;
  void apply(char c);
  void step(char c);       // apply() without the layout bookkeeping
  void step_code(char c);  // step() of a character in code (no literal or word continues)

  // Scopes and names (constraint_names.cpp).
  // Word rules, in the context fixed when the word started.
  bool word_ok(const std::string& w, bool complete, bool field, int decl) const;
  bool generated_ok(const std::string& w, bool complete, int decl) const;
  // Whether a parameter's name may come here (address space and pointer rules).
  bool param_name_ok() const;
  int decl_context() const;
  const Name* kind_of(const std::string& name) const;  // nullptr unless declared and in scope
  void finish_word();
  void declare(const std::string& w);
  void close_scope();
  void refresh_fresh_names();  // names_.fresh for names_.max_lower

  // Expressions (constraint_expressions.cpp).
  // `before`: the significant token before c (the word c ends, if any).
  // `before_prev`: the token before that one. `before_unary`: before_prev is
  // a unary operator. `before_cmp`: before_prev is the '=' of `<=` or `>=`.
  // `pending`: the class of the operand c ends (a word or number not yet
  // finished), else kNone.
  bool code_char_ok(char c, const std::string& before, const std::string& before_prev, bool before_unary,
                    bool before_cmp, Cls pending) const;
  // code_char_ok's parts: the rules for c after a word (a call's '(' is
  // decided here alone), those of the value c continues, and those of c as
  // punctuation (brackets, separators, characters code never has). `ctx`:
  // current_ctx(), `top`: the innermost open bracket (0: none). Only
  // code_char_ok calls them, inlined: it runs for every character of every
  // token the constraint checks.
  bool word_char_ok(char c, const std::string& before, const std::string& before_prev, bool before_unary,
                    bool before_cmp, Ctx ctx) const;
  bool value_char_ok(char c, const std::string& before, const std::string& before_prev, Cls pending, char top,
                     Ctx ctx) const;
  bool punct_char_ok(char c, const std::string& before, char top) const;
  // What may follow an assignment operator (const names, lvalues); c starts
  // the right-hand side.
  bool assignment_ok(char c, const std::string& before, const std::string& before_prev) const;
  // Expression rules for a name used as an operand, at the character after it.
  bool operand_ok(char c, const std::string& name, const std::string& before_prev, bool before_unary,
                  bool before_cmp) const;
  // The vector width of the operand before a '.' just written (a name, a
  // parenthesized name or a subscript's element); 0 when unknown.
  int field_base_width() const;
  Ctx current_ctx() const;
  // The class of name `w` used as an operand (after a cast: unknown).
  Cls name_class(const std::string& w, bool cast, bool deref) const;
  Cls number_class() const;
  Cls word_class() const;  // the class of the word being written as an operand (kNone: none yet)
  // Records an operand's class in the call that classes its operands.
  void record(Cls cls);
  bool operand_end(const std::string& token) const;
  // Whether token `t`, an operand just written, is floating-point (a float
  // name, a float element, a floating-point literal).
  bool float_operand(const std::string& t) const;
  // Whether operator character c, written now, continues the operator
  // written right before it (`&&`, `==`, `->`).
  bool continues_operator(char c) const;
  // Whether the last token is an assignment operator's '=' (not `==`, `<=`, `!=`).
  bool assignment_token() const;
  // Operator bookkeeping of the expression at the current level (Open::Expression).
  void note_operator(char c);
  void end_expression();  // a ',' ';' '}' or label ':' ends it
  void push_token(const std::string& token);

  // Statements and brackets (constraint_statements.cpp).
  void step_punctuation(char c);
  void open_subscript();
  void open_brace();
  void close_bracket(char c);  // ')' or ']'
  bool close_brace();          // true: it closed a struct, union or enum body
  void end_semicolon();
  void end_comma();
  void end_statement(int depth);
  std::vector<bool>::reference if_stmt_at(size_t depth);
  void end_loop_bodies();                       // braceless loop bodies at the current depth (and deeper) end
  void close_braceless_scopes(int from_depth);  // the `for` scopes of braceless bodies at from_depth and deeper
  void end_assignments_deeper_than(size_t depth);
  // Inside a function body (not a parameter list or a struct body).
  bool in_body() const { return !open_.empty() && !open_.back().body.aggregate && !fn_.in_params; }

  // Calls and types (constraint_calls.cpp).
  void open_paren();
  void assign();  // a '=' that is an assignment's (or the second of `==`)
  // Declares generated variable `w` with the type before it.
  void declare_variable(const std::string& w);
  bool type_word(const std::string& w) const;

  const ConstraintTables* t_;
  Lexer lex_;
  Tokens tok_;
  Names names_;
  Expressions expr_;
  Statements stmt_;
  Function fn_;
  std::vector<Open> open_;
};

}  // namespace clgen::sampler
