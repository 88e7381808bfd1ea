import { describe, expect, it } from 'vitest';
import { readCodeConfigKeys } from '../../../src/extract/code-config.js';

const keys = (code: string) => [...readCodeConfigKeys(code)].sort();

describe('readCodeConfigKeys', () => {
  it('reads the keyword arguments of a SQL config() call', () => {
    const sql = "{{\n  config(\n    unique_key='id', strategy='check',\n    target_schema=schema,\n  )\n}}\nselect 1";
    expect(keys(sql)).toEqual(['strategy', 'target_schema', 'unique_key']);
  });

  it('reads dbt.config() in python and several calls in one file', () => {
    const python = 'def model(dbt, session):\n    dbt.config(materialized="table")\n    dbt.config(packages=["x"])\n';
    expect(keys(python)).toEqual(['materialized', 'packages']);
  });

  it('skips names inside nested values, strings and comparisons', () => {
    const sql = "{{ config(partition_by={'field': 'day', 'x=': f(a=1)}, alias='a=b', enabled=var('on') == true) }}";
    expect(keys(sql)).toEqual(['alias', 'enabled', 'partition_by']);
  });

  it('finds nothing without a call, and survives an unclosed one', () => {
    expect(keys('select config from t where x = \'{{ config.get("a") }}\'')).toEqual([]);
    expect(keys("{{ config(materialized='table'")).toEqual(['materialized']);
  });
});
