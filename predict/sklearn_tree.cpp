// scikit-learn entropy trees: a child python3 process learns them from a
// JSON request; the nodes come back as JSON and predictions walk them here.
#include "predict/sklearn_tree.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/files.h"

namespace clgen::predict {

namespace {

// The child's program: reads the request, fits one tree per set, writes nodes.
constexpr const char* kFitScript = R"PY(
import json, sys
try:
    from sklearn.tree import DecisionTreeClassifier
except ImportError as e:
    sys.stderr.write("scikit-learn is not installed (%s)\n" % e)
    sys.exit(3)
req = json.load(open(sys.argv[1]))
trees = []
for s in req["sets"]:
    m = DecisionTreeClassifier(criterion="entropy", splitter="best",
                               max_depth=req["max_depth"] or None,
                               min_samples_leaf=req["min_samples_leaf"],
                               random_state=req["seed"])
    m.fit(s["x"], s["y"])
    t = m.tree_
    trees.append({"left": t.children_left.tolist(), "right": t.children_right.tolist(),
                  "feature": t.feature.tolist(), "threshold": t.threshold.tolist(),
                  "label": [int(m.classes_[v.argmax()]) for v in t.value[:, 0, :]]})
json.dump({"trees": trees}, open(sys.argv[2], "w"))
)PY";

std::string python_interpreter() {
  if (const char* env = std::getenv("CLGEN_PYTHON"); env && *env) return env;
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

// Runs argv with stdout and stderr into `log`; returns the exit status.
Expected<int> run_child(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = fork();
  if (pid < 0) return io_error("fork failed");
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stderr);
    if (f) dup2(fileno(stderr), STDOUT_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s\n", args[0]);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return io_error("waitpid failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

nlohmann::json tree_to_json(const DecisionTree& t) {
  return {{"left", t.left}, {"right", t.right}, {"feature", t.feature},
          {"threshold", t.threshold}, {"label", t.label}};
}

Expected<DecisionTree> tree_from_json(const nlohmann::json& j) {
  DecisionTree t;
  try {
    t.left = j.at("left").get<std::vector<int>>();
    t.right = j.at("right").get<std::vector<int>>();
    t.feature = j.at("feature").get<std::vector<int>>();
    t.threshold = j.at("threshold").get<std::vector<double>>();
    t.label = j.at("label").get<std::vector<int>>();
  } catch (const nlohmann::json::exception& e) {
    return parse_error(fmt::format("decision tree: {}", e.what()));
  }
  size_t n = t.left.size();
  if (n == 0 || t.right.size() != n || t.feature.size() != n || t.threshold.size() != n ||
      t.label.size() != n)
    return parse_error("decision tree: node arrays differ in length");
  for (size_t i = 0; i < n; ++i) {
    bool leaf = t.left[i] < 0;
    if (!leaf && (t.left[i] <= static_cast<int>(i) || t.right[i] <= static_cast<int>(i) ||
                  t.left[i] >= static_cast<int>(n) || t.right[i] >= static_cast<int>(n) ||
                  t.feature[i] < 0))
      return parse_error(fmt::format("decision tree: node {} has bad children", i));
  }
  return t;
}

class SklearnTreeModel : public Model {
 public:
  SklearnTreeModel(ModelParams p, DecisionTree t, size_t features)
      : p_(std::move(p)), tree_(std::move(t)), features_(features) {}

  const ModelParams& params() const override { return p_; }
  size_t feature_count() const override { return features_; }

  Status train(const Matrix& x, const std::vector<double>& y) override {
    ASSIGN_OR_RETURN(auto trees, fit_sklearn_trees({TreeTrainingSet{&x, &y}}, p_));
    tree_ = std::move(trees.front());
    features_ = x.cols;
    return ok_status();
  }

  Expected<std::vector<double>> predict(const Matrix& x) const override {
    if (tree_.left.empty()) return invalid_argument("predicting: the model is not trained");
    if (x.rows() > 0 && x.cols != features_)
      return invalid_argument(fmt::format("predicting: {} features, the model was trained on {}",
                                          x.cols, features_));
    for (int f : tree_.feature)
      if (f >= static_cast<int>(x.cols) && x.rows() > 0)
        return invalid_argument("predicting: the tree tests a feature the data lacks");
    std::vector<double> out;
    for (size_t r = 0; r < x.rows(); ++r) out.push_back(tree_.predict(x.row(r)));
    return out;
  }

  Status save(const std::string& path) const override { return save_with_tag(path, p_.tag); }

  Status save_with_tag(const std::string& path, const std::string& tag) const override {
    if (tree_.left.empty()) return invalid_argument("saving a model: it is not trained");
    nlohmann::json j = {{"clgen_model", 1},
                        {"algorithm", p_.algorithm},
                        {"max_depth", p_.max_depth},
                        {"min_samples", p_.min_samples},
                        {"seed", p_.seed},
                        {"tag", tag},
                        {"features", features_},
                        {"tree", tree_to_json(tree_)}};
    return write_file_atomic(path, j.dump(1) + "\n").with_context("saving model");
  }

 private:
  ModelParams p_;
  DecisionTree tree_;
  size_t features_ = 0;
};

}  // namespace

int DecisionTree::predict(const float* x) const {
  int node = 0;
  while (left[node] >= 0) {
    // scikit-learn compares float32 features with a double threshold.
    node = static_cast<double>(x[feature[node]]) <= threshold[node] ? left[node] : right[node];
  }
  return label[node];
}

Expected<std::vector<DecisionTree>> fit_sklearn_trees(const std::vector<TreeTrainingSet>& sets,
                                                      const ModelParams& params) {
  nlohmann::json req = {{"max_depth", params.max_depth},
                        {"min_samples_leaf", params.min_samples},
                        {"seed", params.seed % 4294967295ull}};
  nlohmann::json js = nlohmann::json::array();
  for (const auto& s : sets) {
    if (s.x->rows() == 0) return invalid_argument("training a decision tree: no samples");
    if (s.x->rows() != s.y->size())
      return invalid_argument("training a decision tree: samples and targets differ in number");
    nlohmann::json x = nlohmann::json::array();
    for (size_t r = 0; r < s.x->rows(); ++r)
      x.push_back(std::vector<float>(s.x->row(r), s.x->row(r) + s.x->cols));
    std::vector<int> y(s.y->begin(), s.y->end());
    js.push_back({{"x", std::move(x)}, {"y", std::move(y)}});
  }
  req["sets"] = std::move(js);

  char dir_template[] = "/tmp/clgen-sktree-XXXXXX";
  if (!mkdtemp(dir_template)) return io_error("training a decision tree: cannot make a temp dir");
  std::string dir = dir_template;
  struct Cleanup {
    std::string d;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  } cleanup{dir};
  RETURN_IF_ERROR(write_file_atomic(dir + "/request.json", req.dump()));
  RETURN_IF_ERROR(write_file_atomic(dir + "/fit.py", kFitScript));
  std::string python = python_interpreter();
  ASSIGN_OR_RETURN(int rc, run_child({python, dir + "/fit.py", dir + "/request.json",
                                      dir + "/trees.json"}, dir + "/log.txt"));
  if (rc != 0) {
    auto log = read_file(dir + "/log.txt", 1 << 20);
    std::string msg = log.ok() ? *log : "";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (rc == 3 || rc == 127)
      return unavailable(fmt::format("the entropy decision tree needs {} with scikit-learn "
                                     "(apt-get install python3-sklearn): {}", python, msg));
    return internal_error(fmt::format("scikit-learn ({}) exited with {}: {}", python, rc, msg));
  }
  ASSIGN_OR_RETURN(std::string out, read_file(dir + "/trees.json"));
  std::vector<DecisionTree> trees;
  try {
    auto j = nlohmann::json::parse(out);
    for (const auto& t : j.at("trees")) {
      ASSIGN_OR_RETURN(DecisionTree tree, tree_from_json(t));
      trees.push_back(std::move(tree));
    }
  } catch (const nlohmann::json::exception& e) {
    return parse_error(fmt::format("reading scikit-learn's trees: {}", e.what()));
  }
  if (trees.size() != sets.size()) return internal_error("scikit-learn returned too few trees");
  return trees;
}

std::unique_ptr<Model> make_sklearn_tree_model(const ModelParams& params) {
  return std::make_unique<SklearnTreeModel>(params, DecisionTree{}, 0);
}

std::unique_ptr<Model> make_sklearn_tree_model(const ModelParams& params, DecisionTree tree,
                                               size_t feature_count) {
  return std::make_unique<SklearnTreeModel>(params, std::move(tree), feature_count);
}

Expected<std::unique_ptr<Model>> load_sklearn_tree_model(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path, 64 << 20));
  try {
    auto j = nlohmann::json::parse(text);
    ModelParams p;
    p.algorithm = j.at("algorithm").get<std::string>();
    p.max_depth = j.at("max_depth").get<int>();
    p.min_samples = j.at("min_samples").get<int>();
    p.seed = j.at("seed").get<uint64_t>();
    p.tag = j.at("tag").get<std::string>();
    ASSIGN_OR_RETURN(DecisionTree tree, tree_from_json(j.at("tree")));
    size_t features = j.at("features").get<size_t>();
    for (int f : tree.feature)
      if (f >= static_cast<int>(features))
        return parse_error(fmt::format("loading model {}: tree tests feature {} of {}", path, f, features));
    return make_sklearn_tree_model(p, std::move(tree), features);
  } catch (const nlohmann::json::exception& e) {
    return parse_error(fmt::format("loading model {}: {}", path, e.what()));
  }
}

}  // namespace clgen::predict
