select
    products.product_id,
    products.product_name,
    products.category,
    products.price,
    coalesce(sum(lines.quantity), 0) as units_ordered,
    {{ cents_to_amount('coalesce(sum(lines.line_cents), 0)') }} as amount_ordered
from {{ ref('stg_products') }} as products
left join {{ ref('int_order_lines') }} as lines on lines.product_id = products.product_id
group by all
