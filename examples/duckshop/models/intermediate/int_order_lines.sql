-- Each order line priced at the product's list price (ephemeral: inlined where it is used).
select
    items.order_item_id,
    items.order_id,
    items.product_id,
    items.quantity,
    products.price_cents,
    items.quantity * products.price_cents as line_cents
from {{ ref('stg_order_items') }} as items
join {{ ref('stg_products') }} as products on products.product_id = items.product_id
