// The realism report: composition of the measures, JSON and table.
#include "eval/report.h"

#include <chrono>
#include <cstdio>
#include <future>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corpus/preprocess/tokens.h"
#include "support/progress.h"
#include "support/thread_pool.h"

namespace clgen::realism {
namespace {

// The first kernel's Grewe vector (as the sampler's filter counts it), or
// nullopt when Clang cannot count it.
std::vector<std::optional<features::GreweVector>> grewe_vectors(const std::vector<std::string>& texts, const char* what,
                                                                unsigned threads, bool progress) {
  std::vector<std::optional<features::GreweVector>> out(texts.size());
  std::unique_ptr<Progress> p;
  if (progress) p = std::make_unique<Progress>(std::string("features of ") + what, texts.size());
  ThreadPool pool(threads);
  std::vector<std::future<void>> done;
  for (size_t i = 0; i < texts.size(); ++i)
    done.push_back(pool.submit([&, i] {
      Expected<std::vector<features::StaticFeatures>> f = features::extract_static_features(texts[i], "kernel.cl");
      if (f && !f->empty()) out[i] = features::grewe_vector(f->front());
      if (p) p->advance();
    }));
  for (auto& d : done) d.get();
  return out;
}

std::vector<const Tokens*> pointers(const std::vector<Tokens>& v) {
  std::vector<const Tokens*> out;
  for (const Tokens& t : v) out.push_back(&t);
  return out;
}

MetricDistribution distribution(std::string metric, std::vector<double> s, std::vector<double> h) {
  MetricDistribution d;
  d.metric = std::move(metric);
  d.ks = ks_statistic(s, h);
  d.median_samples = median(s);
  d.median_humans = median(h);
  d.samples = std::move(s);
  d.humans = std::move(h);
  return d;
}

nlohmann::json judge_json(const JudgeResult& j) {
  return {{"per_side", j.per_side},
          {"auc", j.auc},
          {"fold_auc", j.fold_auc},
          {"called_human", j.called_human},
          {"accuracy", j.accuracy}};
}

}  // namespace

Expected<Report> realism_report(const ReportInputs& in, const ReportOptions& o) {
  auto start = std::chrono::steady_clock::now();
  if (in.samples.empty()) return invalid_argument("no sample kernels to judge");
  if (in.humans.empty()) return invalid_argument("no human kernels to judge against");
  Report r;
  r.samples = in.samples.size();
  r.humans = in.humans.size();
  r.training = in.training.size();
  r.samples_label = in.samples_label;
  r.humans_label = in.humans_label;
  r.training_label = in.training_label;
  std::vector<Tokens> st, ht, tt;
  for (const auto& t : in.samples) st.push_back(preprocess::c_tokens(t));
  for (const auto& t : in.humans) ht.push_back(preprocess::c_tokens(t));
  for (const auto& t : in.training) tt.push_back(preprocess::c_tokens(t));
  const auto sp = pointers(st), hp = pointers(ht), tp = pointers(tt);

  if (o.progress) std::fprintf(stderr, "judge: %zu samples against %zu human kernels\n", st.size(), ht.size());
  ASSIGN_OR_RETURN(r.judge, judge(sp, hp, o.judge));

  std::vector<ShapeCounts> sc, hc;
  for (const Tokens& t : st) sc.push_back(shape_counts(t));
  for (const Tokens& t : ht) hc.push_back(shape_counts(t));
  if (o.length_matched) {
    std::vector<long> sl, hl;
    for (const auto& c : sc) sl.push_back(c.tokens);
    for (const auto& c : hc) hl.push_back(c.tokens);
    std::vector<LengthPair> pairs = match_lengths(sl, hl, o.judge.seed, o.length_relative, o.length_slack);
    if (o.judge.max_per_side > 0 && pairs.size() > o.judge.max_per_side) pairs.resize(o.judge.max_per_side);
    r.length_pairs = pairs.size();
    if (pairs.size() >= size_t(o.judge.folds) * 2) {
      std::vector<const Tokens*> ps, ph;
      for (const auto& p : pairs) {
        ps.push_back(sp[p.sample]);
        ph.push_back(hp[p.human]);
      }
      if (o.progress) std::fprintf(stderr, "judge: %zu length-matched pairs\n", pairs.size());
      ASSIGN_OR_RETURN(JudgeResult j, judge(ps, ph, o.judge, /*paired=*/true));
      r.length_matched = j;
    } else {
      r.notes.push_back(fmt::format("length-matched judge left out: {} pairs", pairs.size()));
    }
  }
  std::vector<Tokens> ft;
  for (const auto& t : in.floor_reference) ft.push_back(preprocess::c_tokens(t));
  const auto fp = pointers(ft);
  const bool own_floor = !in.floor_reference.empty();
  if (o.floor && (own_floor || !tt.empty())) {
    const std::string& label = own_floor ? in.floor_label : in.training_label;
    if (o.progress) std::fprintf(stderr, "judge: the floor, %s against %s\n", label.c_str(), in.humans_label.c_str());
    Expected<JudgeResult> f = judge(own_floor ? fp : tp, hp, o.judge);
    if (f) {
      r.floor = *f;
      r.floor_label = label;
    } else {
      r.notes.push_back("floor left out: " + f.status().message());
    }
  } else if (o.floor) {
    r.notes.push_back("floor left out: no training text");
  }

  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  auto sg = grewe_vectors(in.samples, "samples", threads, o.progress);
  auto hg = grewe_vectors(in.humans, "human kernels", threads, o.progress);
  auto column = [](const std::vector<ShapeCounts>& c, long ShapeCounts::*m) {
    std::vector<double> v;
    for (const auto& x : c) v.push_back(double(x.*m));
    return v;
  };
  r.distributions.push_back(distribution("tokens", column(sc, &ShapeCounts::tokens), column(hc, &ShapeCounts::tokens)));
  r.distributions.push_back(
      distribution("statements", column(sc, &ShapeCounts::statements), column(hc, &ShapeCounts::statements)));
  r.distributions.push_back(distribution("loops", column(sc, &ShapeCounts::loops), column(hc, &ShapeCounts::loops)));
  r.distributions.push_back(
      distribution("branches", column(sc, &ShapeCounts::branches), column(hc, &ShapeCounts::branches)));
  static const char* kGrewe[6] = {"comp", "rational", "mem", "localmem", "coalesced", "atomic"};
  for (int f = 0; f < 6; ++f) {
    std::vector<double> s, h;
    for (const auto& g : sg)
      if (g) s.push_back(double((*g)[size_t(f)]));
    for (const auto& g : hg)
      if (g) h.push_back(double((*g)[size_t(f)]));
    r.distributions.push_back(distribution(kGrewe[f], std::move(s), std::move(h)));
  }
  for (const auto& g : sg) r.samples_without_features += !g;
  for (const auto& g : hg) r.humans_without_features += !g;
  r.coverage = coverage(sg, hg);

  if (!tt.empty()) {
    NgramIndex index(tp, o.novelty_n);
    r.novelty = novelty(sp, index, o.novelty_threshold);
  } else {
    r.notes.push_back("novelty left out: no training text");
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string report_json(const Report& r) {
  nlohmann::json j;
  j["sets"] = {{"samples", {{"label", r.samples_label}, {"kernels", r.samples}}},
               {"human", {{"label", r.humans_label}, {"kernels", r.humans}}},
               {"training", {{"label", r.training_label}, {"kernels", r.training}}}};
  j["judge"] = judge_json(r.judge);
  j["judge_length_matched"] = r.length_matched ? judge_json(*r.length_matched) : nlohmann::json();
  j["length_pairs"] = r.length_pairs;
  j["judge_floor"] = r.floor ? judge_json(*r.floor) : nlohmann::json();
  j["floor_label"] = r.floor_label;
  nlohmann::json d = nlohmann::json::object();
  for (const auto& m : r.distributions)
    d[m.metric] = {{"ks", m.ks},
                   {"median_samples", m.median_samples},
                   {"median_human", m.median_humans},
                   {"kernels_samples", m.samples.size()},
                   {"kernels_human", m.humans.size()}};
  j["distributions"] = d;
  j["kernels_without_features"] = {{"samples", r.samples_without_features}, {"human", r.humans_without_features}};
  j["coverage"] = {{"human_kernels", r.coverage.humans},
                   {"matched", r.coverage.matched},
                   {"share", r.coverage.share},
                   {"human_vectors", r.coverage.human_vectors},
                   {"matched_vectors", r.coverage.matched_vectors}};
  if (r.novelty) {
    const Novelty& n = *r.novelty;
    j["novelty"] = {{"n", n.n},
                    {"threshold", n.threshold},
                    {"samples", n.samples},
                    {"scored", n.scored},
                    {"near_copies", n.near_copies},
                    {"near_copy_share", n.share},
                    {"mean_share_in_training_text", n.mean_anywhere}};
  } else {
    j["novelty"] = nullptr;
  }
  j["seconds"] = r.seconds;
  j["notes"] = r.notes;
  return j.dump(2) + "\n";
}

std::string report_table(const Report& r) {
  std::string s;
  s += fmt::format("realism: {} {} against {} {}", r.samples, r.samples_label, r.humans, r.humans_label);
  if (r.training) s += fmt::format(" (training text: {} {})", r.training, r.training_label);
  s += "\n\n";
  auto judge_line = [&](const std::string& name, const JudgeResult& j) {
    s += fmt::format("  {:<24} AUC {:.3f}  called human {:5.1f}%  accuracy {:5.1f}%  ({} a side)\n", name, j.auc,
                     100 * j.called_human, 100 * j.accuracy, j.per_side);
  };
  s += "judge (token 1-3-gram logistic regression, cross-validated; AUC 0.5 = cannot tell them apart)\n";
  judge_line("samples vs human", r.judge);
  if (r.length_matched) judge_line("length-matched pairs", *r.length_matched);
  if (r.floor) {
    judge_line(fmt::format("floor: {} vs human", r.floor_label), *r.floor);
    s += "    (the floor: human kernels of other repositories; a sample AUC near it is as good as this judge sees)\n";
  }
  s += "\ndistributions                  median samples  median human     KS\n";
  for (const auto& m : r.distributions)
    s += fmt::format("  {:<28} {:>12g}  {:>12g}  {:.3f}\n", m.metric, m.median_samples, m.median_humans, m.ks);
  if (r.samples_without_features || r.humans_without_features)
    s += fmt::format("  (Grewe features could not be counted for {} samples and {} human kernels)\n",
                     r.samples_without_features, r.humans_without_features);
  s += fmt::format(
      "\ncoverage: {} of {} human kernels ({:.1f}%) have a Grewe vector some sample has exactly ({} of {} "
      "distinct vectors)\n",
      r.coverage.matched, r.coverage.humans, 100 * r.coverage.share, r.coverage.matched_vectors,
      r.coverage.human_vectors);
  if (r.novelty) {
    const Novelty& n = *r.novelty;
    s += fmt::format(
        "novelty: {} of {} samples ({:.1f}%) are near copies (token {}-gram containment >= {:g} in one training "
        "kernel); a sample's {}-grams are {:.1f}% in the training text on average\n",
        n.near_copies, n.scored, 100 * n.share, n.n, n.threshold, n.n, 100 * n.mean_anywhere);
    if (n.scored < n.samples)
      s += fmt::format("  ({} samples shorter than {} tokens not scored)\n", n.samples - n.scored, n.n);
  }
  for (const auto& note : r.notes) s += "note: " + note + "\n";
  s += fmt::format("({:.1f} s)\n", r.seconds);
  return s;
}

}  // namespace clgen::realism
