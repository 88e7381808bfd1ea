{{
    config(
        materialized='incremental',
        unique_key='order_id',
        on_schema_change='append_new_columns'
    )
}}

with orders as (
    select * from {{ ref('stg_orders') }}
    {% if is_incremental() %}
    -- Only the orders that changed since the last build; unique_key replaces their old rows.
    where updated_at > (select max(updated_at) from {{ this }})
    {% endif %}
),

lines as (
    select order_id, sum(quantity) as item_count, sum(line_cents) as order_cents
    from {{ ref('int_order_lines') }}
    group by order_id
)

select
    orders.order_id,
    orders.customer_id,
    orders.ordered_at,
    orders.order_date,
    orders.status,
    lines.item_count,
    {{ cents_to_amount('lines.order_cents') }} as order_amount,
    {{ cents_to_amount('coalesce(payments.paid_cents, 0)') }} as paid_amount,
    coalesce(payments.payment_count, 0) as payment_count,
    '{{ env_var("DBTATTIC_EXAMPLE_CURRENCY", "EUR") }}' as currency,
    orders.updated_at
from orders
join lines on lines.order_id = orders.order_id
left join {{ ref('int_order_payments') }} as payments on payments.order_id = orders.order_id
