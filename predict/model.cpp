// OpenCV ml learners behind clgen::predict::Model: parameter mapping,
// feature standardization, one-hot targets for the MLP, and YAML files.
#include "predict/model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <opencv2/core.hpp>
#include <opencv2/ml.hpp>

#include "predict/sklearn_tree.h"
#include "support/files.h"

namespace clgen::predict {

void Matrix::add_row(const std::vector<float>& r) {
  if (values.empty() && cols == 0) cols = r.size();
  values.insert(values.end(), r.begin(), r.end());
}

const std::vector<std::string>& algorithm_names() {
  static const std::vector<std::string> names = {"dtree", "rtrees", "boost", "svm",
                                                 "logreg", "knn",   "mlp",   "nbayes", "sktree"};
  return names;
}

namespace {

bool needs_scaling(const std::string& algorithm) {
  return algorithm == "svm" || algorithm == "logreg" || algorithm == "knn" || algorithm == "mlp";
}

const char* task_name(Task t) { return t == Task::kClassification ? "classification" : "regression"; }

Status check_params(const ModelParams& p) {
  const auto& names = algorithm_names();
  if (std::find(names.begin(), names.end(), p.algorithm) == names.end())
    return invalid_argument(fmt::format("unknown algorithm '{}' (known: {})", p.algorithm,
                                        fmt::join(names, ", ")));
  if (p.task == Task::kRegression &&
      (p.algorithm == "boost" || p.algorithm == "nbayes" || p.algorithm == "logreg" ||
       p.algorithm == "sktree"))
    return invalid_argument(fmt::format("algorithm '{}' cannot do regression", p.algorithm));
  if (p.max_depth < 0 || p.min_samples < 1 || p.trees < 1 || p.k < 1 || p.hidden < 1)
    return invalid_argument(fmt::format("bad parameters for '{}'", p.algorithm));
  return ok_status();
}

class OpenCvModel : public Model {
 public:
  explicit OpenCvModel(ModelParams p) : p_(std::move(p)) {}

  const ModelParams& params() const override { return p_; }
  size_t feature_count() const override { return static_cast<size_t>(mean_.cols); }

  Status train(const Matrix& x, const std::vector<double>& y) override {
    if (x.rows() == 0) return invalid_argument("training a model: no samples");
    if (x.rows() != y.size())
      return invalid_argument(
          fmt::format("training a model: {} samples but {} targets", x.rows(), y.size()));
    try {
      cv::setRNGSeed(static_cast<int>(p_.seed & 0x7fffffff));
      cv::Mat samples = to_mat(x).clone();
      fit_scaler(samples);
      cv::Mat scaled = scale(samples);
      classes_.clear();
      if (p_.task == Task::kClassification) {
        for (double v : y) {
          if (v < 0 || v != std::floor(v))
            return invalid_argument(fmt::format("training a classifier: class id {} is not a "
                                                "non-negative integer", v));
          classes_.push_back(static_cast<int>(v));
        }
        std::sort(classes_.begin(), classes_.end());
        classes_.erase(std::unique(classes_.begin(), classes_.end()), classes_.end());
        if (p_.algorithm == "boost" && classes_.size() > 2)
          return invalid_argument("boost: OpenCV's boosting handles two classes only");
      }
      model_ = make_learner();
      if (p_.algorithm == "rtrees" && p_.active_vars != 0)
        model_.dynamicCast<cv::ml::RTrees>()->setActiveVarCount(
            p_.active_vars < 0 ? samples.cols : std::min(p_.active_vars, samples.cols));
      if (classes_.size() == 1) {
        // One class only: every prediction is that class; no learner needed.
        return ok_status();
      }
      cv::Mat responses = make_responses(y);
      auto data = cv::ml::TrainData::create(scaled, cv::ml::ROW_SAMPLE, responses);
      bool ok;
      if (p_.algorithm == "svm" && p_.svm_c <= 0) {
        ok = model_.dynamicCast<cv::ml::SVM>()->trainAuto(data, 5);
      } else {
        ok = model_->train(data);
      }
      if (!ok) return internal_error(fmt::format("training {}: OpenCV reported failure", p_.algorithm));
    } catch (const cv::Exception& e) {
      return internal_error(fmt::format("training {}: {}", p_.algorithm, e.what()));
    }
    return ok_status();
  }

  Expected<std::vector<double>> predict(const Matrix& x) const override {
    if (!model_) return invalid_argument("predicting: the model is not trained");
    if (x.rows() > 0 && static_cast<int>(x.cols) != mean_.cols)
      return invalid_argument(fmt::format("predicting: {} features, the model was trained on {}",
                                          x.cols, mean_.cols));
    std::vector<double> out(x.rows());
    if (x.rows() == 0) return out;
    if (p_.task == Task::kClassification && classes_.size() == 1) {
      std::fill(out.begin(), out.end(), classes_[0]);
      return out;
    }
    try {
      cv::Mat scaled = scale(to_mat(x));
      cv::Mat result;
      if (p_.algorithm == "knn") {
        model_.dynamicCast<cv::ml::KNearest>()->findNearest(scaled, p_.k, result);
      } else {
        model_->predict(scaled, result);
      }
      result.convertTo(result, CV_32F);
      for (size_t r = 0; r < x.rows(); ++r) {
        if (p_.algorithm == "mlp" && p_.task == Task::kClassification) {
          cv::Point maxloc;
          cv::minMaxLoc(result.row(static_cast<int>(r)), nullptr, nullptr, nullptr, &maxloc);
          out[r] = classes_[maxloc.x];
        } else if (p_.algorithm == "mlp") {
          out[r] = result.at<float>(static_cast<int>(r), 0) * y_std_ + y_mean_;
        } else {
          out[r] = result.at<float>(static_cast<int>(r), 0);
        }
      }
    } catch (const cv::Exception& e) {
      return internal_error(fmt::format("predicting with {}: {}", p_.algorithm, e.what()));
    }
    return out;
  }

  Status save(const std::string& path) const override { return save_with_tag(path, p_.tag); }

  Status save_with_tag(const std::string& path, const std::string& tag) const override {
    if (!model_) return invalid_argument("saving a model: it is not trained");
    std::string text;
    try {
      cv::FileStorage fs(".yml", cv::FileStorage::WRITE | cv::FileStorage::MEMORY);
      fs << "clgen_model" << 1;
      fs << "algorithm" << p_.algorithm;
      fs << "task" << task_name(p_.task);
      fs << "max_depth" << p_.max_depth << "min_samples" << p_.min_samples << "trees" << p_.trees
         << "k" << p_.k << "hidden" << p_.hidden << "svm_c" << p_.svm_c << "svm_gamma"
         << p_.svm_gamma << "seed" << static_cast<double>(p_.seed) << "active_vars"
         << p_.active_vars << "tag" << tag;
      fs << "mean" << mean_ << "std" << std_ << "y_mean" << y_mean_ << "y_std" << y_std_;
      fs << "classes" << classes_;
      if (classes_.size() != 1) {
        fs << "model" << "{";
        model_->write(fs);
        fs << "}";
      }
      text = fs.releaseAndGetString();
    } catch (const cv::Exception& e) {
      return internal_error(fmt::format("saving {}: {}", path, e.what()));
    }
    return write_file_atomic(path, text).with_context("saving model");
  }

  Status read(const std::string& path) {
    try {
      cv::FileStorage fs(path, cv::FileStorage::READ);
      if (!fs.isOpened()) return not_found(fmt::format("loading model: cannot open {}", path));
      if (fs["clgen_model"].empty())
        return parse_error(fmt::format("loading model: {} is not a clgen model file", path));
      fs["algorithm"] >> p_.algorithm;
      std::string task;
      fs["task"] >> task;
      p_.task = task == "regression" ? Task::kRegression : Task::kClassification;
      fs["max_depth"] >> p_.max_depth;
      fs["min_samples"] >> p_.min_samples;
      fs["trees"] >> p_.trees;
      fs["k"] >> p_.k;
      fs["hidden"] >> p_.hidden;
      fs["svm_c"] >> p_.svm_c;
      fs["svm_gamma"] >> p_.svm_gamma;
      double seed = 0;
      fs["seed"] >> seed;
      p_.seed = static_cast<uint64_t>(seed);
      fs["tag"] >> p_.tag;
      if (!fs["active_vars"].empty()) fs["active_vars"] >> p_.active_vars;
      RETURN_IF_ERROR_CTX(check_params(p_), "loading model " + path);
      fs["mean"] >> mean_;
      fs["std"] >> std_;
      fs["y_mean"] >> y_mean_;
      fs["y_std"] >> y_std_;
      fs["classes"] >> classes_;
      model_ = make_learner();
      if (classes_.size() != 1) {
        cv::FileNode node = fs["model"];
        if (node.empty()) return parse_error(fmt::format("loading model: {} has no model node", path));
        model_->read(node);
        if (!model_->isTrained())
          return parse_error(fmt::format("loading model: {} holds no trained {}", path, p_.algorithm));
      }
    } catch (const cv::Exception& e) {
      return parse_error(fmt::format("loading model {}: {}", path, e.what()));
    }
    return ok_status();
  }

 private:
  static cv::Mat to_mat(const Matrix& x) {
    return cv::Mat(static_cast<int>(x.rows()), static_cast<int>(x.cols), CV_32F,
                   const_cast<float*>(x.values.data()));
  }

  void fit_scaler(const cv::Mat& samples) {
    mean_ = cv::Mat::zeros(1, samples.cols, CV_32F);
    std_ = cv::Mat::ones(1, samples.cols, CV_32F);
    if (!needs_scaling(p_.algorithm)) return;
    for (int c = 0; c < samples.cols; ++c) {
      cv::Scalar m, s;
      cv::meanStdDev(samples.col(c), m, s);
      mean_.at<float>(0, c) = static_cast<float>(m[0]);
      std_.at<float>(0, c) = s[0] > 1e-12 ? static_cast<float>(s[0]) : 1.0f;
    }
  }

  cv::Mat scale(const cv::Mat& samples) const {
    cv::Mat out(samples.rows, samples.cols, CV_32F);
    for (int r = 0; r < samples.rows; ++r)
      for (int c = 0; c < samples.cols; ++c)
        out.at<float>(r, c) = (samples.at<float>(r, c) - mean_.at<float>(0, c)) / std_.at<float>(0, c);
    return out;
  }

  cv::Mat make_responses(const std::vector<double>& y) {
    int n = static_cast<int>(y.size());
    if (p_.algorithm == "mlp") {
      if (p_.task == Task::kClassification) {
        cv::Mat onehot = cv::Mat::zeros(n, static_cast<int>(classes_.size()), CV_32F);
        for (int i = 0; i < n; ++i) {
          int idx = static_cast<int>(std::lower_bound(classes_.begin(), classes_.end(),
                                                      static_cast<int>(y[i])) - classes_.begin());
          onehot.at<float>(i, idx) = 1.0f;
        }
        return onehot;
      }
      double sum = 0, sq = 0;
      for (double v : y) sum += v;
      y_mean_ = sum / n;
      for (double v : y) sq += (v - y_mean_) * (v - y_mean_);
      y_std_ = std::sqrt(sq / n) > 1e-12 ? std::sqrt(sq / n) : 1.0;
      cv::Mat r(n, 1, CV_32F);
      for (int i = 0; i < n; ++i) r.at<float>(i, 0) = static_cast<float>((y[i] - y_mean_) / y_std_);
      return r;
    }
    bool integer = p_.task == Task::kClassification && p_.algorithm != "logreg";
    cv::Mat r(n, 1, integer ? CV_32S : CV_32F);
    for (int i = 0; i < n; ++i) {
      if (integer) r.at<int>(i, 0) = static_cast<int>(y[i]);
      else r.at<float>(i, 0) = static_cast<float>(y[i]);
    }
    return r;
  }

  cv::Ptr<cv::ml::StatModel> make_learner() const {
    bool cls = p_.task == Task::kClassification;
    const std::string& a = p_.algorithm;
    if (a == "dtree") {
      auto m = cv::ml::DTrees::create();
      m->setMaxDepth(p_.max_depth > 0 ? p_.max_depth : INT_MAX);
      m->setMinSampleCount(p_.min_samples);
      m->setCVFolds(0);  // no cost-complexity pruning: depth and sample limits only
      m->setUseSurrogates(false);
      m->setUse1SERule(false);
      m->setTruncatePrunedTree(false);
      m->setRegressionAccuracy(0);
      return m;
    }
    if (a == "rtrees") {
      auto m = cv::ml::RTrees::create();
      m->setMaxDepth(p_.max_depth > 0 ? p_.max_depth : 25);
      m->setMinSampleCount(p_.min_samples);
      m->setCVFolds(0);
      m->setRegressionAccuracy(0);
      m->setActiveVarCount(0);  // sqrt(features) per split
      m->setTermCriteria(cv::TermCriteria(cv::TermCriteria::MAX_ITER, p_.trees, 0));
      return m;
    }
    if (a == "boost") {
      auto m = cv::ml::Boost::create();
      m->setBoostType(cv::ml::Boost::GENTLE);
      m->setWeakCount(p_.trees);
      m->setMaxDepth(p_.max_depth > 0 ? p_.max_depth : 1);
      m->setMinSampleCount(p_.min_samples);
      m->setCVFolds(0);
      m->setUseSurrogates(false);
      return m;
    }
    if (a == "svm") {
      auto m = cv::ml::SVM::create();
      m->setType(cls ? cv::ml::SVM::C_SVC : cv::ml::SVM::EPS_SVR);
      m->setKernel(cv::ml::SVM::RBF);
      m->setC(p_.svm_c > 0 ? p_.svm_c : 1.0);
      m->setGamma(p_.svm_gamma > 0 ? p_.svm_gamma : 0.1);
      if (!cls) m->setP(0.01);
      m->setTermCriteria(cv::TermCriteria(cv::TermCriteria::MAX_ITER + cv::TermCriteria::EPS, 10000, 1e-6));
      return m;
    }
    if (a == "logreg") {
      auto m = cv::ml::LogisticRegression::create();
      m->setLearningRate(0.1);
      m->setIterations(300);
      m->setRegularization(cv::ml::LogisticRegression::REG_L2);
      m->setTrainMethod(cv::ml::LogisticRegression::BATCH);
      return m;
    }
    if (a == "knn") {
      auto m = cv::ml::KNearest::create();
      m->setDefaultK(p_.k);
      m->setIsClassifier(cls);
      m->setAlgorithmType(cv::ml::KNearest::BRUTE_FORCE);
      return m;
    }
    if (a == "mlp") {
      auto m = cv::ml::ANN_MLP::create();
      int outputs = cls ? static_cast<int>(std::max<size_t>(classes_.size(), 1)) : 1;
      cv::Mat layers = (cv::Mat_<int>(1, 3) << mean_.cols, p_.hidden, outputs);
      m->setLayerSizes(layers);
      m->setActivationFunction(cv::ml::ANN_MLP::SIGMOID_SYM, 1, 1);
      m->setTrainMethod(cv::ml::ANN_MLP::RPROP);
      m->setTermCriteria(cv::TermCriteria(cv::TermCriteria::MAX_ITER + cv::TermCriteria::EPS, 200, 1e-5));
      return m;
    }
    auto m = cv::ml::NormalBayesClassifier::create();
    return m;
  }

  ModelParams p_;
  cv::Ptr<cv::ml::StatModel> model_;
  cv::Mat mean_, std_;  // 1 x features, CV_32F
  double y_mean_ = 0, y_std_ = 1;  // mlp regression target scaling
  std::vector<int> classes_;       // sorted class ids seen in training
};

}  // namespace

Expected<std::unique_ptr<Model>> Model::create(const ModelParams& params) {
  RETURN_IF_ERROR(check_params(params));
  if (params.algorithm == "sktree") return make_sklearn_tree_model(params);
  return std::unique_ptr<Model>(new OpenCvModel(params));
}

Expected<std::unique_ptr<Model>> Model::load(const std::string& path) {
  // scikit-learn trees are saved as JSON, OpenCV learners as YAML.
  ASSIGN_OR_RETURN(std::string head, read_file(path, 1ull << 30));
  if (!head.empty() && head[0] == '{') return load_sklearn_tree_model(path);
  auto m = std::make_unique<OpenCvModel>(ModelParams{});
  RETURN_IF_ERROR(m->read(path));
  return std::unique_ptr<Model>(std::move(m));
}

}  // namespace clgen::predict
