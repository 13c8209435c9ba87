BlogitsJ,Š[@>R&h>Æxm¿ÅÉì?âÖB?œzÓ>:½
<mŸ>Ï» ¾DiÆ¼!dw¿