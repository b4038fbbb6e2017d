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
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace clgen::sampler {

// What the training corpus says about identifiers, learned once per run.
class ConstraintTables {
 public:
  // Learns from normalized kernels (the rewriter's output).
  static ConstraintTables from_corpus(const std::vector<std::string>& normalized_texts);

  // A generated name: lower-case letters, 1-3 of them (variables), or
  // upper-case letters, 1-2 of them (functions), that is not a fixed word.
  bool is_generated_name(const std::string& w) const;
  bool is_fixed(const std::string& w) const { return fixed_.count(w) > 0; }
  bool is_fixed_prefix(const std::string& w) const { return fixed_prefixes_.count(w) > 0; }
  bool is_field(const std::string& w) const;
  bool is_field_prefix(const std::string& w) const;
  // Words after which only a fresh name can follow (types: `int e`).
  bool is_declarator(const std::string& w) const { return declarators_.count(w) > 0; }
  bool is_pointer_declarator(const std::string& w) const { return pointer_declarators_.count(w) > 0; }
  // Names the corpus defines as types (struct, union, enum tags and
  // typedefs): usable only after the text itself defines them.
  bool is_user_type(const std::string& w) const { return user_types_.count(w) > 0; }
  // Variables the rewriter keeps their names (samplers, ...): like generated
  // names, usable only once the text declares them.
  bool is_kept_name(const std::string& w) const { return kept_names_.count(w) > 0; }
  // Words the corpus follows with '(' (builtins, keywords, function-like
  // names): no other word can be.
  bool is_called(const std::string& w) const { return called_.count(w) > 0; }
  // Called words the corpus never writes without '(' (builtins: a bare
  // `fabs` cannot compile).
  bool is_call_only(const std::string& w) const { return called_.count(w) > 0 && !uncalled_.count(w); }
  // Fixed words the corpus writes right after declarator `d` outside struct
  // bodies (`unsigned int`, `const float`, `sampler_t sampler`): the only
  // fixed words a declaration may continue with.
  bool follows(const std::string& d, const std::string& w, bool complete) const;

  // The argument counts the corpus calls builtin `w` with, as a bit mask
  // (bit n: n arguments; bit 63: 63 or more); 0 if it never calls it.
  uint64_t arities(const std::string& w) const {
    auto it = arities_.find(w);
    return it == arities_.end() ? 0 : it->second;
  }

  size_t fixed_words() const { return fixed_.size(); }
  size_t field_words() const { return fields_.size(); }
  size_t declarator_words() const { return declarators_.size(); }

 private:
  void add_fixed(const std::string& w);
  void add_field(const std::string& w);
  std::unordered_set<std::string> fixed_, fixed_prefixes_;
  std::unordered_set<std::string> fields_, field_prefixes_;
  std::unordered_set<std::string> declarators_;
  std::unordered_set<std::string> called_;
  std::unordered_set<std::string> uncalled_;
  std::unordered_set<std::string> pointer_declarators_;
  std::unordered_set<std::string> user_types_;
  std::unordered_set<std::string> kept_names_;
  std::unordered_map<std::string, uint64_t> arities_;
  struct Words {
    std::unordered_set<std::string> complete, prefixes;
  };
  std::unordered_map<std::string, Words> after_declarator_;
};

// The constraint state of one stream of text.
class CodeConstraint {
 public:
  explicit CodeConstraint(const ConstraintTables* tables) : t_(tables) {}

  // Whether appending `piece` keeps the text a possible prefix.
  bool accepts(std::string_view piece) const;
  // Whether the text may end here (the model's end token): nothing open.
  bool can_end() const { return open_.empty() && mode_ == Mode::kCode; }
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
  struct Open {
    char c;
    bool for_header;  // the '(' after `for`: up to two ';' inside
    bool aggregate;   // a struct, union or enum body (or a file-level '{' not
                      // after ')')
    int semicolons;
    int ternaries = 0;  // '?' still waiting for their ':'
    Ctx ctx = Ctx::kAny;
    bool group = false;         // a '(' that is no call: it passes operands to the one below
    bool classify = false;      // a call whose operands are classed (has_int, has_float)
    bool float_result = false;  // ... that returns a floating-point value
    bool int_result = false;    // a call that returns an integer
    bool cast = false;          // a call right after a cast: the cast's type is the result
    bool has_int = false, has_float = false;
    Cls elem = Cls::kUnknown;   // a subscript's element class
    bool elem_const = false;    // ... and whether the element is const
    int elem_width = 0;         // ... and its vector width
    bool after_assign = false;  // a '(' right after '=' (a cast of the whole value)
    bool loop_body = false;     // a '{' of a loop (break, continue) or switch (break, case)
    bool switch_body = false;
    int extra_scopes = 0;  // `for` header scopes that end with this '{'
    char header = 0;       // the '(' of: 'f'or, 'w'hile, 's'witch
    uint64_t arities = 0;  // a builtin's call: the argument counts the corpus uses (0: any)
    int commas = 0;
    bool do_body = false;       // a '{' of a `do` loop: `while` follows it
    bool float_atomic = false;  // an atomic call that takes a float pointer (`atomic_xchg`)
    // The expression being written at this level (outside inner brackets):
    // whether an operator (not `*p`, `++`, `->`) has made it no lvalue, as it
    // was before the current operator, and whether it reaches memory (a
    // subscript, `*p`, `p->x`): assigning it then stores.
    bool binop = false, binop_prev = false, memory = false;
  };

  bool check(char c) const;
  void apply(char c);
  void step(char c);  // apply() without the layout bookkeeping
  // Word rules, in the context fixed when the word started.
  bool word_ok(const std::string& w, bool complete, bool field, int decl) const;
  bool generated_ok(const std::string& w, bool complete, int decl) const;
  // Whether a parameter's name may come here (address space and pointer rules).
  bool param_name_ok() const;
  int decl_context() const;
  // `before`: the significant token before c (the word c ends, if any).
  // `before_prev`: the token before that one.
  // `before_unary`: before_prev is a unary operator. `pending`: the class of
  // the operand c ends (a word or number not yet finished), else kNone.
  bool code_char_ok(char c, const std::string& before, const std::string& before_prev, bool before_unary,
                    Cls pending) const;
  // What may follow an assignment operator (const names, lvalues); c starts
  // the right-hand side.
  bool assignment_ok(char c, const std::string& before, const std::string& before_prev) const;
  // Expression rules for a name used as an operand, at the character after it.
  bool operand_ok(char c, const std::string& name, const std::string& before_prev, bool before_unary) const;
  Ctx current_ctx() const;
  // The class of name `w` used as an operand (after a cast: unknown).
  Cls name_class(const std::string& w, bool cast, bool deref) const;
  Cls number_class() const;
  Cls word_class() const;  // the class of word_ as an operand (kNone: none yet)
  // Records an operand's class in the call that classes its operands.
  void record(Cls cls);
  bool operand_end(const std::string& token) const;
  // Whether token `t`, an operand just written, is floating-point (a float
  // name, a float element, a floating-point literal).
  bool float_operand(const std::string& t) const;
  bool type_word(const std::string& w) const;
  // Inside a function body (not a parameter list or a struct body).
  bool in_body() const { return !open_.empty() && !open_.back().aggregate && !in_params_; }
  void push_token(const std::string& token);
  void finish_word();
  void declare(const std::string& w);
  void close_scope();
  void end_loop_bodies();                       // braceless loop bodies at the current depth (and
                                                // deeper) end
  void close_braceless_scopes(int from_depth);  // the `for` scopes of braceless
                                                // bodies at from_depth and deeper
  void end_assignments_deeper_than(size_t depth);
  // The fresh names a declaration may take next (the rewriter skips names
  // that a file also uses as fixed words or fields).
  const std::vector<std::string>& fresh_lower() const;

  const ConstraintTables* t_;
  Mode mode_ = Mode::kCode;
  bool escaped_ = false;
  char last_ = 0;                // previous character
  char last2_ = 0;               // the one before it
  int column_ = 0;               // characters since the last newline
  bool indenting_ = true;        // only spaces since the last newline
  std::string word_;             // the identifier being written
  mutable std::string scratch_;  // word_ plus one character, for checks
  int number_length_ = 0;        // characters of the numeric literal being written
  bool number_dot_ = false;      // it has a '.'
  bool word_field_ = false;      // it follows '.' or '->'
  int word_decl_ = 0;            // 0: a use; 1: a declaration or a use; 2: a declaration
  bool field_next_ = false;      // the last significant character was '.' or '->'
  bool tag_ = false;             // after `struct`, `union` or `enum` (and its name)
  std::string prev_;             // the last significant token (word or punctuation)
  std::string prev2_;            // the one before it
  // What a declared generated name is, from its declaration: `[`, `.` and
  // `->` may follow only names that can take them.
  enum class Kind { kScalar, kFloat, kVector, kPointer, kArray, kOther };  // kFloat: float/double/half scalars
  struct Name {
    Kind kind;
    Cls elem;                 // scalars: their class; vectors, pointers, arrays: their
                              // elements'
    bool constant = false;    // a const scalar or vector: never assigned after its declaration
    bool const_elem = false;  // a pointer or array to const (or __constant) elements
    int width = 0;            // vector width of the value (or element): 1 for scalars, 0 unknown
    bool image = false;       // an image (image2d_t, ...)
  };
  std::map<std::string, Name> kinds_;
  const Name* kind_of(const std::string& name) const;  // nullptr unless declared and in scope
  std::string just_declared_;                          // the name the last word declared ('[' makes it an array)
  std::string stmt_type_;                              // the type of the current declaration statement
  bool stmt_const_ = false;                            // ... declared const
  std::vector<std::string> pending_const_;             // const names declared, assignable
                                                       // until their statement ends
  bool prev_unary_ = false;                            // prev_ is a unary operator
  bool prev_joined_ = false;                           // prev_ continues the operator right before it
                                                       // (`&&`, `==`, `+=`, `->`)
  bool prev2_joined_ = false;                          // prev2_ does
  // Whether operator character c, written now, continues the operator
  // written right before it (`&&`, `==`, `->`).
  bool continues_operator(char c) const;
  // Whether prev_ is an assignment operator's '=' (not `==`, `<=`, `!=`).
  bool assignment_token() const;
  // Operator bookkeeping of the expression at the current level (Open::binop).
  void note_operator(char c);
  void end_expression();      // a ',' ';' '}' or label ':' ends it
  bool kernel_body_ = false;  // the open function body is a kernel's
  // ... and what of it survives dead-code elimination, roughly in LLVM
  // instructions: a store, printf or a call that writes 2, a barrier or a
  // statement header 1. The filter wants 3 with the `ret`: a kernel closes
  // at 2.
  int effect_ = 0;
  bool do_pending_ = false, brace_do_ = false;  // a `do` body comes next
  bool expect_while_ = false;
  bool case_label_ = false;          // after `case` or `default`: its ':' may come
  std::string current_fn_;           // the function being defined (OpenCL C has no recursion)  //
                                     // a `do` body just closed: `while` comes next
  bool stmt_local_ = false;          // the statement in a body declares __local variables
  bool stmt_global_ = false;         // ... __global or __constant ones (only pointers may be)
  bool prev2_unary_ = false;         // prev2_ is
  bool prev_cmp_ = false;            // prev_ is the '=' of `<=` or `>=`
  bool prev2_cmp_ = false;           // prev2_ is
  mutable bool before_cmp_ = false;  // the token before the name being checked is such a '='

  bool number_float_ = false;  // the number being written is floating-point
  bool number_hex_ = false;
  bool number_exp_ = false;         // ... has an exponent
  bool last_number_float_ = false;  // the last number written was
  Cls last_elem_ = Cls::kUnknown;   // the element class of the last closed subscript
  bool last_elem_const_ = false;    // ... and whether it is const
  int last_elem_width_ = 0;         // ... and its vector width
  int assign_width_ = 0;            // the vector width of the assignment's left-hand side (0: unknown)
  bool const_seen_ = false;         // `const` (or `__constant`) in the declaration being written
  bool last_paren_group_ = false;   // the last ')' closed parentheses that are no call or header
  bool last_paren_header_ = false;  // ... that are a statement's header
  bool last_paren_type_ = false;    // ... that end with a type (a cast)
  bool cast_to_pointer_ = false;    // ... whose last token was '*' (`(float*)`)
  // An assignment's context: its right-hand side at depth assign_depth_.
  Ctx assign_ctx_ = Ctx::kAny;
  int assign_depth_ = -1;
  Ctx saved_ctx_ = Ctx::kAny;  // the one a '=' replaced (restored when it becomes '==')
  int saved_depth_ = -1;
  bool fn_void_ = false;                 // the function being defined returns void
  bool for_body_pending_ = false;        // a `for` header just closed: its body comes next
  std::vector<int> single_stmt_scopes_;  // depths of `for` bodies without braces
                                         // (their scope ends at ';')
  bool loop_body_pending_ = false;       // a loop header (or `do`) closed: '{' opens a loop body
  bool switch_body_pending_ = false;
  int single_loop_depth_ = -1;     // a loop body without braces, at this depth
  bool body_end_pending_ = false;  // such a body's statement ended; an `else` would continue it
  // `else` only right after an if-statement's body: the depth where one just
  // ended (-1: none), which statements at each depth are if-statements, and
  // whether the last token set it.
  int else_ok_depth_ = -1;
  std::vector<bool> if_stmt_ = std::vector<bool>(1, false);
  bool else_just_set_ = false;
  void end_statement(int depth);
  std::vector<bool>::reference if_stmt_at(size_t depth);
  bool brace_for_ = false, brace_loop_ = false,
       brace_switch_ = false;  // the next '{' is such a body
  int stmt_decl_depth_ = -1;   // its bracket depth (-1: not a declaration)
  std::vector<Open> open_;
  std::vector<std::vector<std::string>> scopes_{{}};  // declared names per open '{' (0: file)
  std::map<std::string, int> visible_;                // declared names in scope
  long max_lower_ = -1;                               // highest generated variable index seen
  mutable long fresh_for_ = -2;                       // max_lower_ that fresh_ was computed for
  mutable std::vector<std::string> fresh_;
  std::unordered_set<std::string> defined_types_;  // struct/typedef names this text defines
  // The parameter list of a function being declared: its depth, whether the
  // function is a kernel, and whether the current parameter has an address
  // space (it must then be a pointer; a kernel's pointers must have one).
  bool in_params_ = false;
  bool kernel_params_ = false;
  bool param_space_ = false;
  bool param_pointer_ = false;  // the current parameter has a '*'
  bool saw_kernel_ = false;
  std::unordered_set<std::string> upper_;  // function names seen
};

}  // namespace clgen::sampler
