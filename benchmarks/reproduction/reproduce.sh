#!/bin/sh
# One command per published comparison of issue 31 (docs/reproduction.md).
#
#   sh benchmarks/reproduction/reproduce.sh COMPARISON [ROOT] [-- --set KEY=VALUE ...]
#
# COMPARISON: gleaner (1), boosting (2), directed-rrr (3), gleanersrl (4), r4f (5), pu (6).
# ROOT (default runs/repro) holds one run directory per learner/variant.  Every step is
# resumable: run the same command again after an interruption -- a finished run directory
# (results.json) is kept, an unfinished one is continued with `ilpkit cv --resume`, a missing
# one is started.  Extra `--set` options after `--` go to every new `ilpkit run` of the
# comparison (e.g. a smaller budget: -- --set learner.options.clauses_per_seed=1000), so they
# must be valid for each of its learners; a resumed run keeps the options saved in its
# config.toml.  Run from the repository root with the venv's python
# first on PATH (or ILPKIT="python -m ilpkit", PYTHON=python).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ILPKIT=${ILPKIT:-ilpkit}
PYTHON=${PYTHON:-python}
what=${1:?usage: reproduce.sh gleaner|boosting|directed-rrr|gleanersrl|r4f|pu [ROOT] [-- --set K=V ...]}
shift
ROOT=runs/repro
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ROOT=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
mkdir -p "$ROOT"

# run_or_resume CONFIG OUT [ilpkit run options...]
run_or_resume() {
    config=$1; out=$2; shift 2
    if [ -f "$out/results.json" ]; then
        echo "done:     $out"
    elif [ -d "$out" ]; then
        echo "resuming: $out"
        $ILPKIT cv --resume "$out" -q
    else
        echo "starting: $out"
        $ILPKIT run "$HERE/$config" --out "$out" -q "$@"
    fi
}

case $what in
gleaner)  # 1: Gleaner vs Aleph ensembles vs single-theory weighting (dissertation ch. 4)
    run_or_resume gleaner-advisor.toml "$ROOT/gleaner-advisor" "$@"
    run_or_resume aleph-ensemble-advisor.toml "$ROOT/aleph-ensemble-advisor" "$@"
    # the 8 schemes weight one theory per unit: the first run learns and caches it, the
    # other 7 read it (learner.options.theory_cache, docs/reproduction.md section 1; the
    # cache is not under single-theory-*, which the report below reads as run directories)
    for scheme in precision count recall f1 ranked lfpr cn2 vote; do
        run_or_resume single-theory-advisor.toml "$ROOT/single-theory-$scheme" \
            --set learner.options.scheme=$scheme \
            --set learner.options.theory_cache="$ROOT/cache/single-theory" "$@"
    done
    $ILPKIT report "$ROOT/gleaner-advisor" "$ROOT/aleph-ensemble-advisor" \
        "$ROOT"/single-theory-* --plot "$ROOT/gleaner-advisor-curves.png"
    ;;
boosting)  # 2: RankBoost vs PRankBoost Clause/Path/Mix1-3 (ILP 2009 Table 2, Table 6.2)
    $PYTHON benchmarks/bench_boosting.py --root "$ROOT/boosting" --data uwcse boostsrl imdb2 \
        --learners rankboost pb-clause pb-path pb-mix1 pb-mix2 pb-mix3 --rounds 100 \
        --repeats 10 --executor processes --workers 2
    ;;
directed-rrr)  # 3: directed RRR vs RRR (dissertation Fig. 5.3); one run gives 1k/10k/25k
    run_or_resume gleaner-advisor.toml "$ROOT/gleaner-advisor" "$@"
    run_or_resume gleaner-directed-rrr-advisor.toml "$ROOT/gleaner-drrr-advisor" "$@"
    for metric in aurpc_points aurpc; do
        $PYTHON benchmarks/bench_directed_rrr.py compare "$ROOT/gleaner-advisor" \
            "$ROOT/gleaner-drrr-advisor" --metric $metric
    done
    $PYTHON benchmarks/bench_directed_rrr.py plot "$ROOT/gleaner-advisor" \
        "$ROOT/gleaner-drrr-advisor" "$ROOT/directed-rrr-advisor.png"
    ;;
gleanersrl)  # 4: GleanerSRL Fig. 3(b), hinge (default) and squared hinge rows
    variants="binned-dot binned-normalised-dot boolean-dot boolean-precision boolean-recall boolean-both-pos boolean-info gleaner"
    mkdir -p "$ROOT/gsrl/stage1"
    for loss in hinge squared-hinge; do
        for v in $variants; do
            if [ $loss = squared-hinge ] && { [ $v = boolean-info ] || [ $v = gleaner ]; }; then
                continue  # info is a precomputed kernel (libsvm only); gleaner has no SVM
            fi
            run_or_resume gleanersrl-advisor.toml "$ROOT/gsrl/$loss/$v" \
                --set learner.options.kernel=$v --set learner.options.svm_loss=$loss \
                --set learner.options.stage1_cache="$ROOT/gsrl/stage1" "$@"
        done
    done
    for loss in hinge squared-hinge; do
        $PYTHON benchmarks/gleanersrl_table.py "$ROOT"/gsrl/$loss/*
    done
    ;;
r4f)  # 5: R4F vs static-rf, Table 1, 10 x 10-fold
    $PYTHON benchmarks/r4f_table1.py --folds 10 --repeats 10 --executor processes \
        --tasks muta188,muta230,carcinogenesis,musk1 --out "$ROOT/r4f"
    ;;
pu)  # 6: TIcER Figs. 1-2 (c-estimate error; PU classifiers against posonly)
    [ -d "$ROOT/pu-data" ] || $PYTHON benchmarks/pu_tasks.py --out "$ROOT/pu-data"
    $PYTHON benchmarks/bench_pu.py --data "$ROOT/pu-data" --root "$ROOT/pu" --labelings 5 \
        --tasks imdb,imdb-director,mutagenesis,mutagenesis-inactive,uwcse,uwcse-professor,webkb,webkb-nonfaculty \
        --classifiers ticer,true-c,c=1,aleph-posonly,posonly --plots "$ROOT/pu"
    ;;
*)
    echo "unknown comparison: $what" >&2; exit 2 ;;
esac
