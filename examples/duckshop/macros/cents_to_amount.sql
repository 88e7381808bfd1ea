{#- Money arrives in integer cents; every model shows it as a two-place decimal amount. -#}
{% macro cents_to_amount(column) -%}
    cast({{ column }} / 100.0 as decimal(12, 2))
{%- endmacro %}
