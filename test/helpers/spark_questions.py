"""One Spark session that reads a `dbtattic export` dataset and answers questions of it (issue 46).

Reads one JSON request on stdin:
  {"datasets": {"local": "/path", "s3": "s3a://bucket/prefix"},   # each read as its own tables
   "tables": ["invocation", "run_result", ...],
   "s3": {"endpoint": ..., "access_key": ..., "secret_key": ..., "jars": [...]} | null,
   "questions": [{"name": ..., "dataset": "local", "sql": "... {t:run_result} ..."}],
   "cache": true}                                                # optional, default true
and prints one JSON object on stdout: {"answers": {name: [row, ...]}, "seconds": {name: float}}.

Each table of each dataset is registered as a temporary view `<dataset>_<table>`, read the way a
user reads it: spark.read.parquet(<dataset>/<table>), which discovers the Hive partitions
(project, date) from the directory names, and cached, so that each file is read once however many
questions read its table (an object store answers each file's reads in several requests); with
"cache": false (bench/export.mjs, timing a question), not: each question reads the files. In a
question's SQL, `{t:run_result}` names that table of the question's dataset. Rows are printed as
JSON objects (doubles as they are: the test rounds in SQL where a figure is computed).

stdout is the protocol: Spark's own output (log4j, the JVM's warnings) goes to stderr.
"""

import json
import os
import sys
import time

# Before Spark starts: the JVM inherits file descriptor 1, so it is pointed at stderr, and only
# this module writes to the original stdout.
_protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr


def session(s3):
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("dbtattic-export-check")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        # The dataset's files are small and many: one task per few files, not per file.
        .config("spark.sql.files.openCostInBytes", "1048576")
    )
    if s3:
        builder = (
            builder.config("spark.jars", ",".join(s3["jars"]))
            .config("spark.hadoop.fs.s3a.endpoint", s3["endpoint"])
            .config("spark.hadoop.fs.s3a.access.key", s3["access_key"])
            .config("spark.hadoop.fs.s3a.secret.key", s3["secret_key"])
            .config("spark.hadoop.fs.s3a.path.style.access", "true")
            .config("spark.hadoop.fs.s3a.connection.ssl.enabled", str(s3["endpoint"].startswith("https")).lower())
            .config("spark.hadoop.fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider")
            .config("spark.hadoop.fs.s3a.endpoint.region", s3.get("region") or "us-east-1")
        )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def plain(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


def main():
    request = json.load(sys.stdin)
    started = time.monotonic()
    spark = session(request.get("s3"))
    seconds = {"session": round(time.monotonic() - started, 2)}
    for dataset, root in request["datasets"].items():
        clock = time.monotonic()
        for table in request["tables"]:
            view = f"{dataset}_{table}"
            spark.read.parquet(f"{root.rstrip('/')}/{table}").createOrReplaceTempView(view)
            if request.get("cache", True):
                spark.catalog.cacheTable(view)
        seconds[f"{dataset} listed"] = round(time.monotonic() - clock, 2)
    answers = {}
    for question in request["questions"]:
        clock = time.monotonic()
        sql = question["sql"]
        for table in request["tables"]:
            sql = sql.replace("{t:" + table + "}", f"{question['dataset']}_{table}")
        rows = spark.sql(sql).collect()
        answers[question["name"]] = [{k: plain(v) for k, v in row.asDict().items()} for row in rows]
        seconds[question["name"]] = round(time.monotonic() - clock, 2)
    spark.stop()
    seconds["total"] = round(time.monotonic() - started, 2)
    _protocol.write(json.dumps({"answers": answers, "seconds": seconds}) + "\n")
    _protocol.flush()


if __name__ == "__main__":
    main()
